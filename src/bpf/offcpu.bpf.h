/* SPDX-License-Identifier: GPL-2.0 */
/* Off-CPU intervals: a traced thread blocks at a sched_switch (not a preemption), a task
 * wakes it (sched_waking), it runs again at a later sched_switch: one rec_off_cpu, sent
 * at that last switch, stamped with the block time.  Its stack is the one of the blocking
 * sched_switch record (joined by thread and time in user space), so no stack is taken
 * twice; a long interval whose switch was sampled out gets its stacks at its end
 * (offstack.bpf.h).  Included once, by probex.bpf.c. */
#ifndef PROBEX_BPF_OFFCPU_BPF_H
#define PROBEX_BPF_OFFCPU_BPF_H

/* Intervals shorter than this are only counted (CNT_OFFCPU_SHORT*). */
const volatile __u64 offcpu_min_ns = 10000;

/* Whether a task leaving the CPU in this state blocks (an off-CPU interval starts), not
 * just waits for a CPU again (preempted, or yielding while runnable). */
static __always_inline bool switch_blocks(__s64 state)
{
	return state != SWITCH_STATE_PREEMPTED && state != 0;
}

/* prev leaves the CPU: when it blocks, the interval starts. */
static __always_inline void offcpu_out(struct tstate *t, __s64 state, __u64 now)
{
	if (!t)
		return;
	if (!switch_blocks(state)) {
		t->off_ts = 0;	/* still runnable: waiting for a CPU is not blocking */
		return;
	}
	t->off_ts = now;
	t->off_state = state;
	t->waker_pid = 0;
	t->waker_tgid = 0;
	t->waker_comm[0] = 0;
	t->wake_ts = 0;
}

/* next gets the CPU back: the interval is complete. */
static __always_inline void offcpu_in(struct task_struct *next, __u64 now)
{
	/* Looked up again rather than passed in: the compiler would merge the caller's two
	 * NULL tests into one pointer OR, which the verifier rejects. */
	struct tstate *t = task_state(next);
	struct rec_off_cpu *r;
	__u64 d, runnable;

	if (!t || !t->off_ts)
		return;
	d = now - t->off_ts;
	if (d < offcpu_min_ns) {
		cnt_add(CNT_OFFCPU_SHORT, 1);
		cnt_add(CNT_OFFCPU_SHORT_NS, d);
		t->off_ts = 0;
		return;
	}
	stat_add(BPF_CORE_READ(next, tgid), STAT_KN(REC_OFF_CPU, 0), d, STAT_TIMED);
	runnable = t->wake_ts ? now - t->wake_ts : REC_RUNNABLE_UNKNOWN;
	if (offstack_wanted(t, d) && offstack_in(next, t, d, now)) {
		offstack_hold(t, d, runnable);
		t->off_ts = 0;
		return;
	}
	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		rec_drop(REC_OFF_CPU);
		t->off_ts = 0;
		return;
	}
	hdr_fill(&r->h, REC_OFF_CPU, t->off_ts, 0);
	r->h.tid = BPF_CORE_READ(next, pid);
	r->h.tgid = BPF_CORE_READ(next, tgid);
	bpf_probe_read_kernel_str(r->h.comm, sizeof(r->h.comm), next->comm);
	r->duration = d;
	r->prev_state = t->off_state;
	r->waker_pid = t->waker_pid;
	r->waker_tgid = t->waker_tgid;
	__builtin_memcpy(r->waker_comm, t->waker_comm, sizeof(r->waker_comm));
	r->runnable = runnable;
	t->off_ts = 0;
	bpf_ringbuf_submit(r, rb_flags());
	cnt_add(CNT_EVENTS, 1);
}

/* Whether this runs in an interrupt (hard, soft, NMI) rather than in the task that
 * current names: a wakeup from a timer, a device or a softirq is no task's doing,
 * whatever task it interrupted.  x86-64 enters an interrupt in one of two ways:
 *  - of kernel code: on the CPU's interrupt stack, outside current's stack;
 *  - of user code: on current's stack (as a syscall is), but the registers saved at the
 *    stack's top are then the interrupt's, whose orig_ax the entry code sets to -1 ("no
 *    syscall to restart"), where a syscall leaves its number.
 * A user-mode exception (a page fault) looks the same and counts as an interrupt: its
 * rare wakeups go without a waker rather than with a wrong one.  Not irq, softirq and
 * hrtimer entry and exit hooks: attaching and detaching them patches kernel text (~6 ms
 * of every run's wall time), and they run on every interrupt.
 * The preempt count would say it too, but reading that per-CPU variable needs
 * CONFIG_KALLSYMS_ALL. */
static __always_inline bool in_interrupt_ctx(void)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct probex_pt_regs *regs = (struct probex_pt_regs *)bpf_task_pt_regs(t);
	volatile __u64 here = 0;
	__u64 lo = (__u64)BPF_CORE_READ(t, stack), sp = (__u64)&here;

	if (sp < lo || sp >= (__u64)regs)
		return true;
	return (regs->cs & 3) == 3 && regs->orig_ax == (__u64)-1;
}

/* The waker's stack, sampled like other events, and always for a wakee blocked for at
 * least offcpu_stack_min_ns: only a traced waker's (an untraced one has no sampling
 * clock, and would cost a stack on every wakeup). */
static __always_inline void waker_stack(void *ctx, struct task_struct *p, struct tstate *t,
					__u64 pid_tgid)
{
	struct tstate *wt = cur_state();
	struct rec_waker *r;
	bool stacked;
	__u64 now;
	__u32 w;

	if (!wt || stack_mode == STACKS_NONE)
		return;
	now = bpf_ktime_get_ns();
	w = stack_take(wt, SC_WAKER, now);
	if (!w && stack_mode == STACKS_SAMPLED && now - t->off_ts >= offcpu_stack_min_ns)
		w = 1;
	if (!w)
		return;
	r = rec_open(sizeof(*r), REC_WAKER, w, now, pid_tgid, &stacked);
	if (!r)
		return;
	r->wakee_tid = BPF_CORE_READ(p, pid);
	r->_pad = 0;
	r->wakee_off_ts = t->off_ts;
	rec_finish(ctx, r, sizeof(*r), stacked, true, true);
}

/* Runs in the waker's context: current is the waker, unless an interrupt woke it.  The
 * first wakeup ends the blocked part of the interval, whoever made it. */
static __always_inline void offcpu_wakeup(void *ctx, struct task_struct *p)
{
	struct tstate *t = task_state(p);
	__u64 pid_tgid;

	if (!t || !t->off_ts)
		return;
	if (!t->wake_ts)
		t->wake_ts = bpf_ktime_get_ns();
	if (t->waker_pid || in_interrupt_ctx())
		return;
	pid_tgid = bpf_get_current_pid_tgid();
	t->waker_pid = (__u32)pid_tgid;
	t->waker_tgid = pid_tgid >> 32;
	/* Names a waker outside the traced processes too, which no row of its own does. */
	bpf_get_current_comm(t->waker_comm, sizeof(t->waker_comm));
	waker_stack(ctx, p, t, pid_tgid);
}

/* sched_waking, not sched_wakeup: a wakeup of a task on another CPU may be queued to
 * that CPU and finished there in an IPI, where sched_wakeup fires in no waker's context;
 * sched_waking always fires in try_to_wake_up, called by the waker.  Not
 * sched_wakeup_new: a new task has never blocked (its state starts zeroed, off_ts 0). */
SEC("tp_btf/sched_waking")
int BPF_PROG(sched_waking, struct task_struct *p)
{
	offcpu_wakeup(ctx, p);
	return 0;
}

/* The wakeup time when sched_waking came too early to count: a waker that finds a thread
 * between its dequeue and its sched_switch (not yet marked blocked) fires sched_waking
 * then, and sched_wakeup only once the switch is over. */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(sched_wakeup, struct task_struct *p)
{
	struct tstate *t = task_state(p);

	if (t && t->off_ts && !t->wake_ts)
		t->wake_ts = bpf_ktime_get_ns();
	return 0;
}

#endif
