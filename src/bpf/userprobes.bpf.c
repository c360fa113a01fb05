// SPDX-License-Identifier: GPL-2.0
/* --probe: user-chosen uprobes, USDT probes and tracepoints, as rec_probe records.
 *
 * A BPF object of its own, loaded only when --probe is given (start-up without probes is
 * unchanged).  It shares the main object's ring buffer, traced-thread state and counters
 * (user space reuses their fds), so only traced threads are recorded and records arrive
 * in the same stream.  Four generic programs serve every probe: the attach cookie is the
 * probe's id, and pspecs[id] says how to read its arguments. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "bpf/records.h"
#include "bpf/uapi.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#include "bpf/record.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PROBEX_PROBES_MAX);
	__type(key, __u32);
	__type(value, struct probe_spec);
} pspecs SEC(".maps");

/* Records of each probe the ring buffer could not take. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PROBEX_PROBES_MAX);
	__type(key, __u32);
	__type(value, __u64);
} probe_drops SEC(".maps");

/* Open u: calls of a thread, innermost last.  uretprobes fire in return order, so a stack
 * pairs recursion and nesting; deeper calls are counted unpaired.  An entry that sent no
 * record (no stack sampled, no strings) keeps its arguments here until its return sends
 * the call as one record. */
#define PROBE_DEPTH 32
#define PROBE_REG_ARGS 6

struct pcall {
	__u32 id;
	__u8 held;		/* the entry sent nothing yet: args[] are its arguments */
	__u8 nargs;
	__u16 _pad;
	__u64 ts;
	__u64 args[PROBE_REG_ARGS];
};

struct pcalls {
	__u32 depth;
	__u32 _pad;
	struct pcall call[PROBE_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct pcalls);
} pcalls SEC(".maps");

enum src { SRC_REGS, SRC_USDT, SRC_TP };

#define PF_EXITING 0x00000004	/* task->flags: in do_exit() (include/linux/sched.h) */

static __always_inline void probe_drop(__u32 id, __u8 kind)
{
	__u64 *n = bpf_map_lookup_elem(&probe_drops, &id);

	if (n)
		__sync_fetch_and_add(n, 1);
	if (kind)
		rec_drop(kind);
}

static __always_inline __u64 reg_arg(struct pt_regs *regs, int i)
{
	switch (i) {
	case 0: return PT_REGS_PARM1(regs);
	case 1: return PT_REGS_PARM2(regs);
	case 2: return PT_REGS_PARM3(regs);
	case 3: return PT_REGS_PARM4(regs);
	case 4: return PT_REGS_PARM5(regs);
	default: return BPF_CORE_READ(regs, r9);
	}
}

/* A tracepoint field's value (strings are read by tp_str). */
static __always_inline __u64 tp_field(void *ctx, const struct probe_arg_spec *a)
{
	__u64 v = 0;

	switch (a->size) {
	case 1: bpf_probe_read_kernel(&v, 1, ctx + a->off); break;
	case 2: bpf_probe_read_kernel(&v, 2, ctx + a->off); break;
	case 4: bpf_probe_read_kernel(&v, 4, ctx + a->off); break;
	default: bpf_probe_read_kernel(&v, 8, ctx + a->off); break;
	}
	return v;
}

static __always_inline __u64 sign_fix(__u64 v, __u8 type)
{
	switch (type) {
	case PA_S8: return (__u64)(__s64)(__s8)v;
	case PA_S16: return (__u64)(__s64)(__s16)v;
	case PA_S32: return (__u64)(__s64)(__s32)v;
	case PA_U8: return (__u8)v;
	case PA_U16: return (__u16)v;
	case PA_U32: return (__u32)v;
	default: return v;
	}
}

static __always_inline void str_fault(struct rec_probe_str *r, __u8 slot, char *dst)
{
	dst[0] = 0;
	r->p.str_fault |= 1u << slot;
	cnt_add(CNT_PROBE_STR_FAULT, 1);
}

static __always_inline void str_cut(struct rec_probe_str *r, __u8 slot)
{
	r->p.str_cut |= 1u << slot;
	cnt_add(CNT_PROBE_STR_CUT, 1);
}

/* A user string argument into its slot: "" and counted when it faults, flagged when cut. */
static __always_inline void user_str(struct rec_probe_str *r, __u8 slot, __u64 addr)
{
	char c = 0;
	long n;

	if (slot >= PROBEX_PROBE_STRS)
		return;
	n = bpf_probe_read_user_str(r->str[slot], PROBEX_PROBE_STR_LEN, (void *)addr);
	if (n < 0)
		return str_fault(r, slot, r->str[slot]);
	if (n == PROBEX_PROBE_STR_LEN &&
	    !bpf_probe_read_user(&c, 1, (void *)addr + PROBEX_PROBE_STR_LEN - 1) && c)
		str_cut(r, slot);
}

/* A tracepoint's string field (a char array, or __data_loc) into its slot. */
static __always_inline void tp_str(struct rec_probe_str *r, void *ctx, const struct probe_arg_spec *a)
{
	__u8 slot = a->slot;
	__u32 loc = 0;
	long n;

	if (slot >= PROBEX_PROBE_STRS)
		return;
	if (a->loc == 2 && bpf_probe_read_kernel(&loc, sizeof(loc), ctx + a->off))
		return str_fault(r, slot, r->str[slot]);
	n = bpf_probe_read_kernel_str(r->str[slot], PROBEX_PROBE_STR_LEN,
				      ctx + (a->loc == 2 ? (loc & 0xffff) : a->off));
	if (n < 0)
		return str_fault(r, slot, r->str[slot]);
	if (n == PROBEX_PROBE_STR_LEN)
		str_cut(r, slot);
}

static __always_inline void fill_args(void *ctx, struct rec_probe *r, const struct probe_spec *sp,
				      enum src src, bool strs)
{
	r->nargs = sp->nargs;
	for (int i = 0; i < PROBEX_PROBE_ARGS; i++) {
		const struct probe_arg_spec *a = &sp->arg[i];
		long v = 0;

		r->args[i] = 0;
		if (i >= sp->nargs)
			continue;
		if (src == SRC_TP) {
			if (a->type == PA_STR && strs)
				tp_str((struct rec_probe_str *)r, ctx, a);
			else if (a->type != PA_STR)
				r->args[i] = sign_fix(tp_field(ctx, a), a->type);
			continue;
		}
		if (src == SRC_REGS && i < 6)
			v = reg_arg(ctx, i);
		else if (src == SRC_USDT)
			bpf_usdt_arg(ctx, i, &v);
		if (a->type == PA_STR) {
			if (strs)
				user_str((struct rec_probe_str *)r, a->slot, v);
			continue;
		}
		r->args[i] = sign_fix(v, a->type);
	}
}

static __always_inline void hdr_probe(struct rec_probe *r, __u32 id, __u8 phase)
{
	r->h.sub = phase;
	r->id = id;
	r->nargs = 0;
	r->str_cut = r->str_fault = 0;
	r->_pad = 0;
	r->enter_ts = 0;
	r->ret = 0;
}

/* One firing, its record of a constant size for the verifier (strs: with string slots). */
static __always_inline void send_one(void *ctx, const struct probe_spec *sp, __u32 id, __u8 phase,
				     enum src src, bool kstack, __u32 w, bool strs)
{
	__u32 size = strs ? sizeof(struct rec_probe_str) : sizeof(struct rec_probe);
	__u8 kind = strs ? REC_PROBE_STR : REC_PROBE;
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	struct rec_probe *r;
	bool stacked;

	if (!w) {
		/* Apart from the stacked case: the verifier then knows r is a ring-buffer slot. */
		r = bpf_ringbuf_reserve(&rb, size, 0);
		if (!r) {
			probe_drop(id, kind);
			return;
		}
		hdr_fill(&r->h, kind, now, pid_tgid);
		hdr_probe(r, id, phase);
		fill_args(ctx, r, sp, src, strs);
		bpf_ringbuf_submit(r, rb_flags());
		cnt_add(CNT_EVENTS, 1);
		return;
	}
	r = rec_open(size, kind, w, now, pid_tgid, &stacked);
	if (!r) {
		probe_drop(id, 0);
		return;
	}
	hdr_probe(r, id, phase);
	fill_args(ctx, r, sp, src, strs);
	rec_finish(ctx, r, size, true, true, kstack);
}

/* One firing with arguments, its stack taken when stack_take() gave a weight w. */
static __always_inline void send_args(void *ctx, const struct probe_spec *sp, __u32 id, __u8 phase,
				      enum src src, bool kstack, __u32 w)
{
	if (sp->nstr)
		send_one(ctx, sp, id, phase, src, kstack, w, true);
	else
		send_one(ctx, sp, id, phase, src, kstack, w, false);
}

/* A usdt: or tp: firing. */
static __always_inline void fire(void *ctx, __u32 id, enum src src, bool kstack)
{
	struct probe_spec *sp = bpf_map_lookup_elem(&pspecs, &id);
	struct tstate *t = cur_state();
	__u64 now = bpf_ktime_get_ns();

	if (t && sp)
		send_args(ctx, sp, id, PROBE_FIRE, src, kstack, stack_take(t, SC_PROBE, now));
}

/* Keep a u: entry's arguments for its return; false when it must be sent now (a stack
 * sampled, strings to read, or no room). */
static __always_inline bool hold_entry(struct pt_regs *ctx, struct pcalls *c, const struct probe_spec *sp,
				       __u32 id, __u32 w, __u64 now)
{
	__u32 d = c->depth++;
	struct pcall *e;

	if (d >= PROBE_DEPTH)
		return false;
	e = &c->call[d];
	e->id = id;
	e->ts = now;
	e->held = !w && !sp->nstr;
	if (!e->held)
		return false;
	e->nargs = sp->nargs < PROBE_REG_ARGS ? sp->nargs : PROBE_REG_ARGS;
	for (int i = 0; i < PROBE_REG_ARGS; i++)
		e->args[i] = i < e->nargs ? sign_fix(reg_arg(ctx, i), sp->arg[i].type) : 0;
	return true;
}

/* u: entries: probes without str arguments here, the others in probe_enter_str (each
 * program verified only when some probe needs it: the string reads are most of it). */
SEC("uprobe")
int probe_enter(struct pt_regs *ctx)
{
	__u32 id = (__u32)bpf_get_attach_cookie(ctx), w;
	struct probe_spec *sp = bpf_map_lookup_elem(&pspecs, &id);
	struct tstate *t = cur_state();
	struct pcalls *c;
	__u64 now;

	if (!t || !sp)
		return 0;
	now = bpf_ktime_get_ns();
	w = stack_take(t, SC_PROBE, now);
	c = bpf_task_storage_get(&pcalls, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (c && hold_entry(ctx, c, sp, id, w, now))
		return 0;
	send_one(ctx, sp, id, PROBE_ENTER, SRC_REGS, false, w, false);
	return 0;
}

SEC("uprobe")
int probe_enter_str(struct pt_regs *ctx)
{
	__u32 id = (__u32)bpf_get_attach_cookie(ctx), d;
	struct probe_spec *sp = bpf_map_lookup_elem(&pspecs, &id);
	struct tstate *t = cur_state();
	struct pcalls *c;
	__u64 now;

	if (!t || !sp)
		return 0;
	now = bpf_ktime_get_ns();
	c = bpf_task_storage_get(&pcalls, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (c) {
		d = c->depth++;
		if (d < PROBE_DEPTH) {
			c->call[d].id = id;
			c->call[d].ts = now;
			c->call[d].held = 0;
		}
	}
	send_one(ctx, sp, id, PROBE_ENTER, SRC_REGS, false, stack_take(t, SC_PROBE, now), true);
	return 0;
}

/* A held entry whose return will not come (a thread that exits or jumps out of the call,
 * or lives on past the recording): its enter record, at its own time.  task: whose entry
 * it is, when that is not the current task (its comm, not the caller's). */
static __always_inline void send_held(struct pcall *e, __u64 pid_tgid, struct task_struct *task)
{
	struct rec_probe *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);

	e->held = 0;
	if (!r) {
		probe_drop(e->id, REC_PROBE);
		return;
	}
	hdr_fill(&r->h, REC_PROBE, e->ts, pid_tgid);
	if (task)
		bpf_probe_read_kernel_str(r->h.comm, sizeof(r->h.comm), task->comm);
	hdr_probe(r, e->id, PROBE_ENTER);
	r->nargs = e->nargs;
	for (int i = 0; i < PROBEX_PROBE_ARGS; i++)
		r->args[i] = i < PROBE_REG_ARGS ? e->args[i] : 0;
	bpf_ringbuf_submit(r, rb_flags());
	cnt_add(CNT_EVENTS, 1);
}

/* A held call at its return: one record, as long as its arguments need. */
static __always_inline void send_call(const struct pcall *e, __u64 now, __u64 pid_tgid, __s64 ret)
{
	__u64 buf[(sizeof(struct rec_probe_call) + PROBE_REG_ARGS * 8) / 8];
	struct rec_probe_call *r = (void *)buf;
	__u32 n = e->nargs < PROBE_REG_ARGS ? e->nargs : PROBE_REG_ARGS;

	hdr_fill(&r->h, REC_PROBE_CALL, now, pid_tgid);
	r->h.sub = PROBE_EXIT;
	r->id = e->id;
	r->nargs = (__u8)n;
	r->_pad[0] = r->_pad[1] = r->_pad[2] = 0;
	r->enter_ts = e->ts;
	r->ret = ret;
	for (int i = 0; i < PROBE_REG_ARGS; i++)
		r->args[i] = e->args[i];
	if (bpf_ringbuf_output(&rb, r, sizeof(*r) + n * 8, rb_flags())) {
		probe_drop(e->id, REC_PROBE_CALL);
		return;
	}
	cnt_add(CNT_EVENTS, 1);
}

/* The innermost open call, popped: it when it is probe id's, else NULL (an entry whose
 * return never came is sent as an entry alone). */
static __always_inline struct pcall *pop_call(struct pcalls *c, __u32 id, __u64 pid_tgid)
{
	struct pcall *e;
	__u32 d;

	if (!c || !c->depth)
		return NULL;
	d = --c->depth;
	if (d >= PROBE_DEPTH)
		return NULL;
	e = &c->call[d];
	if (e->id == id)
		return e;
	if (e->held)
		send_held(e, pid_tgid, NULL);
	return NULL;
}

SEC("uretprobe")
int probe_exit(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	__u32 id = (__u32)bpf_get_attach_cookie(ctx);
	struct rec_probe *r;
	struct pcall *e;

	/* An open call's entry found the thread traced: the test is only for the others. */
	e = pop_call(bpf_task_storage_get(&pcalls, bpf_get_current_task_btf(), 0, 0), id, pid_tgid);
	if (e && e->held) {
		e->held = 0;
		send_call(e, now, pid_tgid, (__s64)PT_REGS_RC(ctx));
		return 0;
	}
	if (!e && !cur_state())
		return 0;
	if (!e)
		cnt_add(CNT_PROBE_UNPAIRED, 1);
	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		probe_drop(id, REC_PROBE);
		return 0;
	}
	hdr_fill(&r->h, REC_PROBE, now, pid_tgid);
	hdr_probe(r, id, PROBE_EXIT);
	r->enter_ts = e ? e->ts : 0;
	r->ret = (__s64)PT_REGS_RC(ctx);
	for (int i = 0; i < PROBEX_PROBE_ARGS; i++)
		r->args[i] = 0;
	bpf_ringbuf_submit(r, rb_flags());
	cnt_add(CNT_EVENTS, 1);
	return 0;
}

struct held_walk {
	struct pcalls *c;
	__u64 pid_tgid;
	struct task_struct *task;
};

static long send_held_step(__u64 i, void *arg)
{
	struct held_walk *w = arg;

	if (i >= PROBE_DEPTH || i >= w->c->depth)
		return 1;
	if (w->c->call[i].held)
		send_held(&w->c->call[i], w->pid_tgid, w->task);
	return 0;
}

/* A thread that ends inside probed calls (exit() below main, pthread_exit): their held
 * entries are sent, or they would vanish with its storage.  A bpf_loop() step is verified
 * once: the unrolled loop took the verifier ~10 ms at every start. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(probe_task_exit, struct task_struct *p)
{
	struct held_walk w = {
		.c = bpf_task_storage_get(&pcalls, bpf_get_current_task_btf(), 0, 0),
		.pid_tgid = bpf_get_current_pid_tgid(),
	};

	if (w.c)
		bpf_loop(PROBE_DEPTH, send_held_step, &w, 0);
	return 0;
}

/* The end of a recording whose threads live on (Ctrl-C, --duration, --pid, -a): user space
 * runs this over every task once the u: probes are detached, for the calls still open.
 * Exiting tasks are left to probe_task_exit. */
SEC("iter/task")
int probe_drain(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct held_walk w = { .task = task };

	if (!task || (task->flags & PF_EXITING))
		return 0;
	w.c = bpf_task_storage_get(&pcalls, task, 0, 0);
	if (!w.c)
		return 0;
	w.pid_tgid = (__u64)task->tgid << 32 | (__u32)task->pid;
	bpf_loop(PROBE_DEPTH, send_held_step, &w, 0);
	return 0;
}

SEC("usdt")
int probe_usdt(struct pt_regs *ctx)
{
	fire(ctx, (__u32)bpf_usdt_cookie(ctx), SRC_USDT, false);
	return 0;
}

SEC("tracepoint")
int probe_tp(void *ctx)
{
	fire(ctx, (__u32)bpf_get_attach_cookie(ctx), SRC_TP, true);
	return 0;
}
