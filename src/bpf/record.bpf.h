/* SPDX-License-Identifier: GPL-2.0 */
/* The record path shared by every probex program: settings, maps, per-thread state,
 * drop counters, stack sampling and capture, and building and submitting a record.
 * Included once, by probex.bpf.c (one BPF object, one skeleton). */
#ifndef PROBEX_BPF_RECORD_BPF_H
#define PROBEX_BPF_RECORD_BPF_H

const volatile __u32 stack_mode = STACKS_SAMPLED;
const volatile __u64 stack_interval_ns = 1000000;
const volatile __u64 wakeup_bytes = 256 * 1024;	/* 0: wake up on every record */
/* Bytes of user stack copied per CPU sample for CFI unwinding at finalize (a multiple
 * of PROBEX_USTACK_CHUNK, at most PROBEX_USTACK_MAX); 0: frame-pointer walks. */
const volatile __u32 ustack_copy_bytes = 0;
/* The sampled stacks of syscall, fault and scheduler events are copies too (at most one
 * per thread, class and interval: cheap); with --stacks=all they stay frame-pointer walks. */
const volatile bool ustack_copy_events = false;
/* -a: every task but probex's own is traced, its state created on first sight. */
const volatile bool trace_all = false;
const volatile __u32 self_tgid = 0;

/* The command's process, set by user space while it is stopped before exec: tracing it
 * starts at its exec, so none of probex's own code (the tail of the fork) is recorded. */
__u32 root_tgid;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024 * 1024);	/* resized by user space before load */
} rb SEC(".maps");

/* Processes (tgids) being traced: the root command and everything it forks.  Not
 * preallocated: creating 16K elements up front cost ~6 ms of every recording's start-up
 * (tracing `true` needs one); the programs that update it are tracepoints, where the
 * kernel allocates elements from per-CPU caches. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} traced SEC(".maps");

/* Per-thread state, present exactly for traced threads: the hot-path "is this traced?"
 * test is a task-storage lookup (a pointer walk) instead of hash lookups. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tstate);
} tstates SEC(".maps");

/* Allocated per entry: preallocating 65536 entries took 10 ms of every start, for
 * io_uring requests most traced programs never make.  The bucket array is still sized
 * by max_entries, and costs its creation time: 16384 requests in flight at once, half of
 * one ring's largest submission queue; more are counted as map full. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct iou_inflight);
} iou_inflight SEC(".maps");

struct counters {
	__u64 v[CNT__COUNT];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct counters);
} counters SEC(".maps");

#define SCRATCH_DEPTH 4

/* Records with stacks are built here and copied out with bpf_ringbuf_output, because
 * their size is only known after the stacks are taken.  Programs nest on a CPU (the
 * CPU sampler interrupts a syscall program, io_uring completions arrive in interrupts),
 * so each nesting level gets its own slot. */
struct scratch {
	__u32 depth;
	__u32 _pad;
	__u8 buf[SCRATCH_DEPTH][REC_MAX_SIZE];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

/* Records with a stack copy, per nesting level (rec_ustack_begin); the nesting level is
 * scratch's.  A per-CPU value is at most 32 KiB: one slot each. */
#define UCOPY_WALK(fixed) (rec_ustack_off(fixed) + sizeof(struct rec_ustack))
#define UCOPY_WALK_MASK (2 * UNW_MAX_FRAMES - 1)
#define UCOPY_SIZE (REC_MAX_FIXED + PROBEX_MAX_FRAMES * 8 + sizeof(struct rec_ustack) + \
		    (UCOPY_WALK_MASK + 1) * 8 + PROBEX_USTACK_MAX + PY_SECTION_MAX)

struct ucopy {
	__u8 buf[UCOPY_SIZE];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCRATCH_DEPTH);
	__type(key, __u32);
	__type(value, struct ucopy);
} ucopy SEC(".maps");

/* Per-CPU perf buffers for mmap side-band records (opened by user space). */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} sideband SEC(".maps");

/* A global function: inlined, its lookup and bound test were verified again at each of
 * the dozens of places a program counts something, on each path reaching them. */
__noinline int cnt_add(__u64 idx, __u64 n)
{
	__u32 zero = 0;
	struct counters *c = bpf_map_lookup_elem(&counters, &zero);

	/* Atomic even though per-CPU: a program interrupting us on this CPU would
	 * otherwise lose its increment. */
	if (c && idx < CNT__COUNT)
		__sync_fetch_and_add(&c->v[idx], n);
	return 0;
}


/* Records within this many bytes past a multiple of wakeup_bytes wake the consumer. */
#define RB_WAKE_WINDOW 4096

/* Wake the consumer as the data passes each multiple of wakeup_bytes (a power of two),
 * not for every record past the first: a consumer that falls behind was otherwise woken
 * (an irq_work) for every record, and a 300-thread burst ran 20 times slower. */
static __always_inline __u64 rb_flags(void)
{
	__u64 avail;

	if (!wakeup_bytes)
		return 0;
	avail = bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA);
	return avail >= wakeup_bytes && (avail & (wakeup_bytes - 1)) < RB_WAKE_WINDOW
		       ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/* State of a task if it is traced, else NULL. */
static __always_inline struct tstate *task_state(struct task_struct *task)
{
	if (trace_all) {
		/* Not the idle tasks (pid 0), not probex itself. */
		if (!BPF_CORE_READ(task, pid) || BPF_CORE_READ(task, tgid) == self_tgid)
			return NULL;
		return bpf_task_storage_get(&tstates, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	}
	return bpf_task_storage_get(&tstates, task, 0, 0);
}

static __always_inline struct tstate *cur_state(void)
{
	return task_state(bpf_get_current_task_btf());
}

/* Returns the weight a stack taken now carries, or 0 when no stack should be taken. */
static __always_inline __u32 stack_take(struct tstate *t, __u32 cls, __u64 now)
{
	__u32 w;

	if (stack_mode == STACKS_NONE)
		return 0;
	if (stack_mode == STACKS_ALL || !t)
		return 1;
	if (cls >= SC__COUNT)
		return 0;
	w = ++t->since_stack[cls];
	if (now - t->last_stack_ts[cls] < stack_interval_ns)
		return 0;
	t->since_stack[cls] = 0;
	t->last_stack_ts[cls] = now;
	return w;
}

static __always_inline void hdr_fill(struct rec_hdr *h, __u8 kind, __u64 ts, __u64 pid_tgid)
{
	h->ts = ts;
	h->tid = (__u32)pid_tgid;
	h->tgid = pid_tgid >> 32;
	h->cpu = bpf_get_smp_processor_id();
	h->kind = kind;
	h->sub = 0;
	h->ustack_n = 0;
	h->kstack_n = 0;
	h->flags = 0;
	h->_pad = 0;
	h->weight = 1;
	bpf_get_current_comm(h->comm, sizeof(h->comm));
}

/* Claim this CPU's current nesting level (*d); scratch_put() releases it.  A nested
 * program finishes before the one it interrupted resumes, so a plain per-CPU counter is
 * enough.  NULL when every level is taken. */
static __always_inline struct scratch *scratch_claim(__u32 *d)
{
	__u32 zero = 0, v;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);

	if (!s)
		return NULL;
	v = s->depth;
	if (v >= SCRATCH_DEPTH)
		return NULL;
	s->depth = v + 1;
	*d = v;
	return s;
}

/* This nesting level's scratch record. */
static __always_inline void *scratch_get(void)
{
	__u32 d;
	struct scratch *s = scratch_claim(&d);

	return s ? s->buf[d] : NULL;
}

static __always_inline void scratch_put(void)
{
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);

	if (s && s->depth)
		s->depth--;
}

static __always_inline void *rec_ustack_begin(__u32 fixed);

#include "bpf/unwind.bpf.h"

/* Either a ring-buffer slot of exactly `size` bytes (no stack), a ring-buffer slot with
 * room for a stack copy (ustack_copy_events), or a per-CPU scratch area (a stack walked
 * here).  `*stacked` tells rec_finish() a stack was wanted; it tells copies apart by the
 * same test. */
static __always_inline void *rec_begin(__u32 size, bool want_stack, bool *stacked)
{
	*stacked = want_stack;
	if (want_stack && ustack_copy_events)
		return rec_ustack_begin(size);
	if (want_stack)
		return scratch_get();
	return bpf_ringbuf_reserve(&rb, size, 0);
}

static __always_inline void rec_drop(__u8 kind)
{
	/* A syscall is a syscall, with or without its path. */
	if (kind == REC_SYSCALL_PATH)
		kind = REC_SYSCALL;
	if (kind < REC__COUNT)
		cnt_add(CNT_RB_DROP0 + kind, 1);
}

/* rec_begin() for a record that carries a stack when stack_take() gave it a weight w:
 * the header filled (kind, now, the current task) and weighted, or NULL with the drop
 * counted. */
static __always_inline void *rec_open(__u32 size, __u8 kind, __u32 w, __u64 now,
				      __u64 pid_tgid, bool *stacked)
{
	struct rec_hdr *h = rec_begin(size, w > 0, stacked);

	if (!h) {
		rec_drop(kind);
		return NULL;
	}
	hdr_fill(h, kind, now, pid_tgid);
	h->weight = w ? w : 1;
	return h;
}

/* rec_open() for an event whose stack is sampled per thread and class (stack_take()). */
static __always_inline void *rec_open_sampled(__u32 size, __u8 kind, struct tstate *t, __u32 cls,
					      __u64 now, __u64 pid_tgid, bool *stacked)
{
	return rec_open(size, kind, stack_take(t, cls, now), now, pid_tgid, stacked);
}

/* Walk the user stack through frame pointers, leaf first, into buf.  Unlike the
 * kernel's perf walker (bpf_get_stack), stop as soon as a frame pointer does not move
 * up the stack: code built without frame pointers (libc, ld.so) otherwise sends the
 * walk round a loop to the depth limit, costing ~25 us of bogus frames.
 *
 * One step per bpf_loop() call: the verifier checks the step once, where a bounded loop
 * is verified through all its iterations in every program that takes a stack (loading
 * ~4x slower with --call-graph fp or --stacks=all). */
struct fpwalk {
	__u64 *buf;
	__u64 fp;
	long n;
	bool ended;
};

static long fpwalk_step(__u64 i, void *data)
{
	struct fpwalk *w = data;
	__u64 fp = w->fp, fr[2];

	w->ended = true;
	if (i >= PROBEX_MAX_FRAMES - 1)
		return 1;
	if (fp < 0x1000 || fp >= (1ull << 63) || (fp & 7))
		return 1;
	if (bpf_probe_read_user(fr, sizeof(fr), (void *)fp))
		return 1;
	if (fr[1] < 0x1000 || fr[1] >= (1ull << 63))
		return 1;
	w->buf[i + 1] = fr[1];
	w->n = i + 2;
	if (fr[0] <= fp || fr[0] - fp > (8u << 20))
		return 1;
	w->fp = fr[0];
	w->ended = false;
	return 0;
}

static __always_inline long user_stack(__u64 *buf, __u64 ip, __u64 fp, __u16 *flags)
{
	struct fpwalk w = { .buf = buf, .fp = fp, .n = 1 };

	if (ip < 0x1000 || ip >= (1ull << 63))
		return 0;
	buf[0] = ip;
	bpf_loop(PROBEX_MAX_FRAMES - 1, fpwalk_step, &w, 0);
	if (!w.ended) {
		*flags |= REC_F_USTACK_TRUNC;
		cnt_add(CNT_STACK_TRUNC, 1);
	}
	return w.n;
}

/* The kernel stack into buf (at most PROBEX_MAX_FRAMES frames): its frame count, failures
 * and truncation counted. */
static __always_inline long kernel_stack(void *ctx, void *buf, __u16 *flags)
{
	long kn = bpf_get_stack(ctx, buf, PROBEX_MAX_FRAMES * 8, 0);

	if (kn < 0) {
		cnt_add(CNT_KSTACK_ERR, 1);
		return 0;
	}
	kn /= 8;
	if (kn >= PROBEX_MAX_FRAMES) {
		kn = PROBEX_MAX_FRAMES;
		*flags |= REC_F_KSTACK_TRUNC;
		cnt_add(CNT_STACK_TRUNC, 1);
	}
	return kn;
}

#include "bpf/python.bpf.h"

/* Append user and/or kernel stacks after the fixed part and send the record.  The user
 * walk starts from (uip, ufp) when have_uregs, else from the task's saved user registers. */
static __always_inline void rec_finish_regs(void *ctx, void *rec, __u32 fixed, bool stacked,
					    bool want_user, bool want_kernel, bool have_uregs,
					    __u64 uip, __u64 ufp)
{
	struct rec_hdr *h = rec;
	long un = 0, kn = 0;
	__u64 size;

	if (!stacked) {
		bpf_ringbuf_submit(rec, rb_flags());
		cnt_add(CNT_EVENTS, 1);
		return;
	}
	if (fixed > REC_MAX_FIXED) {
		scratch_put();
		return;
	}
	if (want_user) {
		if (!have_uregs) {
			struct probex_pt_regs *regs =
				(struct probex_pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

			uip = regs->ip;
			ufp = regs->bp;
		}
		un = user_stack(rec + fixed, uip, ufp, &h->flags);
		if (un > PROBEX_MAX_FRAMES)
			un = PROBEX_MAX_FRAMES;
	}
	if (want_kernel)
		kn = kernel_stack(ctx, rec + fixed + un * 8, &h->flags);
	h->ustack_n = un;
	h->kstack_n = kn;
	size = fixed + (un + kn) * 8;
	if (want_user)
		size = py_append(rec, size, REC_MAX_SIZE);
	barrier_var(size);	/* one copy of size: the bound checked is the one used */
	if (size <= REC_MAX_SIZE && bpf_ringbuf_output(&rb, rec, size, rb_flags()) == 0)
		cnt_add(CNT_EVENTS, 1);
	else
		rec_drop(h->kind);
	scratch_put();
}

/* Bytes of the stack that can hold frames, up to --stack-copy.  Each byte copied is read
 * from user memory and written to the ring buffer, so only up to where the frames end:
 *  - the main thread: where the process started (mm->start_stack: argc, below argv and
 *    the environment), and a little more for _start's frame;
 *  - a glibc thread: its thread pointer (the FS base: its struct pthread, whose static
 *    TLS lies just below, then the first frame), not the top of its stack's mapping,
 *    further up;
 *  - any other stack: the end of its mapping.
 * A copy of the full size would run past the stack's end, fail, and go chunk by chunk
 * (on a CPU-bound main thread, every sample: ~17 us each). */
#define USTACK_TOP_SLACK 64

struct vma_end {
	__u64 end;
};

static long vma_end_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	((struct vma_end *)data)->end = vma->vm_end;
	return 0;
}

static __always_inline __u32 ustack_want(__u64 sp)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 top = BPF_CORE_READ(t, mm, start_stack) + USTACK_TOP_SLACK;
	__u64 fs = BPF_CORE_READ(t, thread.fsbase);
	struct vma_end v = { 0 };
	__u32 want = ustack_copy_bytes;

	if (sp < top && top - sp < want)
		want = (__u32)(top - sp) & ~7u;
	else if (sp < fs && fs - sp < want)
		want = (__u32)(fs - sp) & ~7u;
	/* Only tries the mmap lock: when it is taken, the full size. */
	else if (!bpf_find_vma(t, sp, vma_end_cb, &v, 0) && v.end > sp && v.end - sp < want)
		want = (__u32)(v.end - sp) & ~7u;
	if (want > ustack_copy_bytes)
		want = ustack_copy_bytes;
	return want;
}

/* Chunk i after the head of ustack_copy's fallback, one per bpf_loop step.  Its offset
 * comes from the step's index, not from a length carried over: a value that changes each
 * step would make the verifier check the step once per chunk, as it did the loop. */
struct ustack_chunks {
	__u8 *dst;
	__u64 sp;
	__u32 head, len;
};

static long ustack_chunk(__u64 i, void *data)
{
	struct ustack_chunks *c = data;
	__u64 off = c->head + i * PROBEX_USTACK_CHUNK;

	if (i >= PROBEX_USTACK_MAX / PROBEX_USTACK_CHUNK || c->head > PROBEX_USTACK_CHUNK ||
	    off > ustack_copy_bytes - PROBEX_USTACK_CHUNK)
		return 1;
	if (bpf_probe_read_user(c->dst + off, PROBEX_USTACK_CHUNK, (void *)(c->sp + off)))
		return 1;
	c->len = off + PROBEX_USTACK_CHUNK;
	return 0;
}

/* Copy the user stack from sp up into dst: in one read, or, when that runs past the end
 * of the stack mapping (a shallow stack near its top), chunk by chunk up to the first
 * unreadable one.  Chunks are aligned so that none straddles a page. */
static __always_inline __u32 ustack_copy(__u8 *dst, __u64 sp)
{
	struct ustack_chunks c = { .dst = dst, .sp = sp };
	__u32 want = ustack_want(sp);

	if (want && !bpf_probe_read_user(dst, want, (void *)sp))
		return want;
	c.head = PROBEX_USTACK_CHUNK - (sp & (PROBEX_USTACK_CHUNK - 1));
	if (bpf_probe_read_user(dst, c.head, (void *)sp))
		return 0;
	c.len = c.head;
	bpf_loop(PROBEX_USTACK_MAX / PROBEX_USTACK_CHUNK - 1, ustack_chunk, &c, 0);
	return c.len;
}

/* The registers the unwinder starts from: the task's saved user registers, which the
 * interrupt entry wrote in both cases (a sample in user mode, or in a syscall). */
static __always_inline void uregs_fill(__u64 *r)
{
	struct probex_pt_regs *p = (struct probex_pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());

	r[UREG_AX] = p->ax;
	r[UREG_DX] = p->dx;
	r[UREG_CX] = p->cx;
	r[UREG_BX] = p->bx;
	r[UREG_SI] = p->si;
	r[UREG_DI] = p->di;
	r[UREG_BP] = p->bp;
	r[UREG_SP] = p->sp;
	r[UREG_R8] = p->r8;
	r[UREG_R9] = p->r9;
	r[UREG_R10] = p->r10;
	r[UREG_R11] = p->r11;
	r[UREG_R12] = p->r12;
	r[UREG_R13] = p->r13;
	r[UREG_R14] = p->r14;
	r[UREG_R15] = p->r15;
	r[UREG_IP] = p->ip;
}

/* A record of `fixed` bytes whose user stack is a copy (REC_F_USTACK_COPY): built in a
 * per-CPU buffer, then copied into the ring buffer at the size it came to.  Reserving
 * the largest size in the ring instead (and reading the stack straight into place) makes
 * each sample write ring pages the kernel has not touched yet in this recording, a fault
 * each on a VM (~6 us a sample); a shallow stack's copy is a few hundred bytes, not
 * --stack-copy's maximum.  rec_ustack_send() fills the stacks and sends it. */
static __always_inline void *rec_ustack_begin(__u32 fixed)
{
	__u32 d;
	struct scratch *s = scratch_claim(&d);
	void *buf;

	if (!s)
		return NULL;
	buf = bpf_map_lookup_elem(&ucopy, &d);
	if (!buf)
		s->depth = d;	/* released: the caller counts a drop and sends nothing */
	return buf;
}

/* A record's user stack from its struct rec_ustack on: what UCOPY_SIZE leaves room for. */
struct ustack_area {
	struct rec_ustack u;
	__u64 frames[UCOPY_WALK_MASK + 1];
	__u8 copy[PROBEX_USTACK_MAX];
};

/* The registers, the walk, then the copy from where the walk stopped; returns the frames
 * walked.  A global function: the verifier checks it once per program, not once per
 * place a program sends a stack. */
__noinline int ustack_fill(struct ustack_area *a)
{
	__u32 walked;

	if (!a)
		return 0;
	uregs_fill(a->u.regs);
	/* A global function's result is any number to the verifier: the mask bounds it
	 * (at most UNW_MAX_FRAMES, under the mask). */
	walked = unw_walk_rec((struct unw_rec *)a) & UCOPY_WALK_MASK;
	a->u.len = 0;
	/* The copy follows the walked frames: the record is packed as it is built. */
	if (!(a->u.wflags & (REC_W_WHOLE | REC_W_CAP))) {
		a->u.len = ustack_copy((__u8 *)a->frames + walked * 8, a->u.regs[UREG_SP]);
		if (!a->u.len)
			cnt_add(CNT_USTACK_COPY_ERR, 1);
	}
	return walked;
}

static __always_inline void rec_ustack_send(void *ctx, void *rec, __u32 fixed, bool want_kernel)
{
	struct rec_hdr *h = rec;
	struct rec_ustack *u = rec + rec_ustack_off(fixed);
	long kn = 0;
	__u64 size;
	__u32 walked;

	h->flags |= REC_F_USTACK_COPY;
	walked = ustack_fill((struct ustack_area *)u) & UCOPY_WALK_MASK;
	if (u->wflags & REC_W_CAP)
		cnt_add(CNT_STACK_TRUNC, 1);
	if (want_kernel)
		kn = kernel_stack(ctx, rec + fixed, &h->flags);
	h->kstack_n = kn;
	size = UCOPY_WALK(fixed) + walked * 8 + (__u64)u->len;
	size = py_append(rec, size, UCOPY_SIZE);
	barrier_var(size);
	if (size <= UCOPY_SIZE && bpf_ringbuf_output(&rb, rec, size, rb_flags()) == 0)
		cnt_add(CNT_EVENTS, 1);
	else
		rec_drop(h->kind);
	scratch_put();
}

static __always_inline void rec_finish(void *ctx, void *rec, __u32 fixed, bool stacked,
				       bool want_user, bool want_kernel)
{
	if (stacked && ustack_copy_events)
		rec_ustack_send(ctx, rec, fixed, want_kernel);
	else
		rec_finish_regs(ctx, rec, fixed, stacked, want_user, want_kernel, false, 0, 0);
}

#endif
