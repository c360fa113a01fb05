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

/* Open u: calls of a thread, innermost last: entry time and probe id.  uretprobes fire
 * in return order, so a stack pairs recursion and nesting; deeper calls are counted
 * unpaired. */
#define PROBE_DEPTH 32

struct pcalls {
	__u32 depth;
	__u32 id[PROBE_DEPTH];
	__u64 ts[PROBE_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct pcalls);
} pcalls SEC(".maps");

enum src { SRC_REGS, SRC_USDT, SRC_TP };

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

/* One firing with arguments: a record of the size its spec needs, its stack sampled. */
static __always_inline void send_args(void *ctx, __u32 id, __u8 phase, enum src src, bool kstack)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	struct probe_spec *sp = bpf_map_lookup_elem(&pspecs, &id);
	struct tstate *t = cur_state();
	struct rec_probe *r;
	bool stacked;
	__u32 w;

	if (!t || !sp)
		return;
	w = stack_take(t, SC_PROBE, now);
	if (sp->nstr) {
		r = rec_open(sizeof(struct rec_probe_str), REC_PROBE_STR, w, now, pid_tgid, &stacked);
		if (!r) {
			probe_drop(id, 0);
			return;
		}
		hdr_probe(r, id, phase);
		fill_args(ctx, r, sp, src, true);
		rec_finish(ctx, r, sizeof(struct rec_probe_str), stacked, true, kstack);
		return;
	}
	r = rec_open(sizeof(struct rec_probe), REC_PROBE, w, now, pid_tgid, &stacked);
	if (!r) {
		probe_drop(id, 0);
		return;
	}
	hdr_probe(r, id, phase);
	fill_args(ctx, r, sp, src, false);
	rec_finish(ctx, r, sizeof(struct rec_probe), stacked, true, kstack);
}

SEC("uprobe")
int probe_enter(struct pt_regs *ctx)
{
	__u32 id = (__u32)bpf_get_attach_cookie(ctx);
	struct pcalls *c;
	__u32 d;

	if (!cur_state())
		return 0;
	c = bpf_task_storage_get(&pcalls, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (c) {
		d = c->depth++;
		if (d < PROBE_DEPTH) {
			c->id[d] = id;
			c->ts[d] = bpf_ktime_get_ns();
		}
	}
	send_args(ctx, id, PROBE_ENTER, SRC_REGS, false);
	return 0;
}

SEC("uretprobe")
int probe_exit(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns(), enter_ts = 0;
	__u32 id = (__u32)bpf_get_attach_cookie(ctx);
	struct rec_probe *r;
	struct pcalls *c;
	__u32 d;

	if (!cur_state())
		return 0;
	c = bpf_task_storage_get(&pcalls, bpf_get_current_task_btf(), 0, 0);
	if (c && c->depth) {
		d = --c->depth;
		if (d < PROBE_DEPTH && c->id[d] == id)
			enter_ts = c->ts[d];
	}
	if (!enter_ts)
		cnt_add(CNT_PROBE_UNPAIRED, 1);
	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		probe_drop(id, REC_PROBE);
		return 0;
	}
	hdr_fill(&r->h, REC_PROBE, now, pid_tgid);
	hdr_probe(r, id, PROBE_EXIT);
	r->enter_ts = enter_ts;
	r->ret = (__s64)PT_REGS_RC(ctx);
	for (int i = 0; i < PROBEX_PROBE_ARGS; i++)
		r->args[i] = 0;
	bpf_ringbuf_submit(r, rb_flags());
	cnt_add(CNT_EVENTS, 1);
	return 0;
}

SEC("usdt")
int probe_usdt(struct pt_regs *ctx)
{
	send_args(ctx, (__u32)bpf_usdt_cookie(ctx), PROBE_FIRE, SRC_USDT, false);
	return 0;
}

SEC("tracepoint")
int probe_tp(void *ctx)
{
	send_args(ctx, (__u32)bpf_get_attach_cookie(ctx), PROBE_FIRE, SRC_TP, true);
	return 0;
}
