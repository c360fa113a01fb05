/* SPDX-License-Identifier: GPL-2.0 */
/* Complete blocking stacks: an off-CPU interval at least offcpu_stack_min_ns long whose
 * blocking switch was sampled out gets its stacks when it ends, when its length is known.
 *  - kernel: read from the thread as it is switched back in (bpf_get_task_stack works on
 *    a task that is not current, and until then the thread is still where it blocked),
 *    sent as a rec_off_kstack;
 *  - user: unchanged until the thread returns to user space, but only readable from its
 *    own context; so when it blocked in a recorded syscall its off_cpu record is held
 *    (tstate.pend) and sent, with the user stack, from the first BPF program the thread
 *    runs itself: that syscall's exit, its next switch out, or its exit.
 * Short intervals keep the sampled stacks.  Included once, by probex.bpf.c. */
#ifndef PROBEX_BPF_OFFSTACK_BPF_H
#define PROBEX_BPF_OFFSTACK_BPF_H

const volatile __u64 offcpu_stack_min_ns = 1000000;

/* Threads holding an off_cpu record: while there are none, the exit of a syscall that is
 * not recorded costs no state lookup. */
__u32 offstack_held;

/* Whether an interval that blocked at off_ts and lasted d ns still needs stacks: its
 * blocking switch took none (stack_take() stamps the sampling clock with the switch time,
 * which is off_ts). */
static __always_inline bool offstack_wanted(struct tstate *t, __u64 d)
{
	return stack_mode == STACKS_SAMPLED && d >= offcpu_stack_min_ns &&
	       t->last_stack_ts[SC_SCHED_BLOCK] != t->off_ts;
}

/* The kernel stack next blocked with, sent at its switch-in (h.ts: now). */
static __always_inline void offstack_kernel(struct task_struct *next, struct tstate *t, __u64 now)
{
	struct rec_off_kstack *r = scratch_get();
	long kn;

	if (!r) {
		rec_drop(REC_OFF_KSTACK);
		return;
	}
	hdr_fill(&r->h, REC_OFF_KSTACK, now, 0);
	r->h.tid = BPF_CORE_READ(next, pid);
	r->h.tgid = BPF_CORE_READ(next, tgid);
	bpf_probe_read_kernel_str(r->h.comm, sizeof(r->h.comm), next->comm);
	r->off_ts = t->off_ts;
	kn = bpf_get_task_stack(next, (void *)(r + 1), PROBEX_MAX_FRAMES * 8, 0);
	if (kn < 0) {
		cnt_add(CNT_KSTACK_ERR, 1);
		kn = 0;
	}
	kn /= 8;
	if (kn >= PROBEX_MAX_FRAMES) {
		kn = PROBEX_MAX_FRAMES;
		r->h.flags |= REC_F_KSTACK_TRUNC;
	}
	r->h.kstack_n = kn;
	if (bpf_ringbuf_output(&rb, r, sizeof(*r) + kn * 8, rb_flags()) == 0)
		cnt_add(CNT_EVENTS, 1);
	else
		rec_drop(REC_OFF_KSTACK);
	scratch_put();
}

/* At next's switch-in, its interval (blocked at t->off_ts, d ns long) needing stacks:
 * the kernel stack sent, and whether the off_cpu record is to wait for the user stack.
 * Blocked in a syscall (its saved orig_ax a syscall number, recorded or not), its exit
 * says when the thread returns to user space; elsewhere (a page fault) nothing does, and
 * the row goes without a user stack.  Not across an exec either: its exit returns to
 * another program. */
static __always_inline bool offstack_in(struct task_struct *next, struct tstate *t, __u64 d,
					__u64 now)
{
	struct probex_pt_regs *regs = (struct probex_pt_regs *)bpf_task_pt_regs(next);
	__s64 nr = (__s64)regs->orig_ax;

	cnt_add(CNT_OFFCPU_LATE_STACK, 1);
	offstack_kernel(next, t, now);
	if (nr >= 0 && nr != 59 /* execve */ && nr != 322 /* execveat */)
		return true;
	cnt_add(CNT_OFFCPU_LATE_NOUSER, 1);
	return false;
}

static __always_inline void offstack_hold(struct tstate *t, __u64 d, __u64 runnable)
{
	t->pend.ts = t->off_ts;
	t->pend.duration = d;
	t->pend.runnable = runnable;
	t->pend.state = t->off_state;
	t->pend.waker_pid = t->waker_pid;
	t->pend.waker_tgid = t->waker_tgid;
	__builtin_memcpy(t->pend.waker_comm, t->waker_comm, sizeof(t->pend.waker_comm));
	__sync_fetch_and_add(&offstack_held, 1);
}

/* The held off_cpu record of the current thread, sent with its user stack.  A global
 * function: the verifier checks it once per program, not at each of its callers' paths
 * (it takes no kernel stack, so no ctx). */
__noinline int offstack_send(struct tstate *t)
{
	struct rec_off_cpu *r;
	bool stacked;

	if (!t)
		return 0;
	__sync_fetch_and_add(&offstack_held, -1);
	r = rec_open(sizeof(*r), REC_OFF_CPU, 1, t->pend.ts, bpf_get_current_pid_tgid(), &stacked);
	if (!r) {
		t->pend.ts = 0;
		return 0;
	}
	r->duration = t->pend.duration;
	r->prev_state = t->pend.state;
	r->waker_pid = t->pend.waker_pid;
	r->waker_tgid = t->pend.waker_tgid;
	__builtin_memcpy(r->waker_comm, t->pend.waker_comm, sizeof(r->waker_comm));
	r->runnable = t->pend.runnable;
	t->pend.ts = 0;
	rec_finish(NULL, r, sizeof(*r), stacked, true, false);
	return 0;
}

/* In the current thread's own context, before it returns to user space: its held off_cpu
 * record, sent with the user stack it blocked with. */
static __always_inline void offstack_flush(void *ctx, struct tstate *t)
{
	if (t->pend.ts)
		offstack_send(t);
}

/* The exit of a syscall that is not recorded: a held record of the thread goes out. */
static __always_inline void offstack_exit_unrecorded(void *ctx)
{
	struct tstate *t;

	if (!offstack_held)
		return;
	t = cur_state();
	if (t)
		offstack_flush(ctx, t);
}

#endif
