/* SPDX-License-Identifier: GPL-2.0 */
/* Syscalls: one program pair on raw sys_enter/sys_exit for every syscall, filtered by
 * number through sys_flags (set by user space from --syscalls), paired here so that a
 * syscall costs one record.  Included once, by probex.bpf.c. */
#ifndef PROBEX_BPF_SYSCALL_BPF_H
#define PROBEX_BPF_SYSCALL_BPF_H

/* SYSF_* per syscall number; all zero records nothing. */
const volatile __u8 sys_flags[PROBEX_SYSCALL_MAX];

/* x86-64 numbers of the syscalls with event types of their own (the 0.1 format's ten). */
static __always_inline int sys_kind_of(long id)
{
	switch (id) {
	case 0: return SYS_READ;
	case 1: return SYS_WRITE;
	case 9: return SYS_MMAP;
	case 11: return SYS_MUNMAP;
	case 12: return SYS_BRK;
	case 74: return SYS_FSYNC;
	case 75: return SYS_FDATASYNC;
	case 425: return SYS_IO_URING_SETUP;
	case 426: return SYS_IO_URING_ENTER;
	case 427: return SYS_IO_URING_REGISTER;
	default: return SYS_OTHER;
	}
}

static __always_inline __u8 sys_flags_of(long id)
{
	if (id < 0 || id >= PROBEX_SYSCALL_MAX)
		return 0;
	return sys_flags[id];
}

/* The path argument, read at enter: at exit it may be gone (execve replaced the image). */
static __always_inline void sys_read_path(struct tstate *t, struct probex_pt_regs *regs, __u8 f)
{
	const char *arg = (const char *)(f & SYSF_PATH0 ? regs->di : regs->si);
	long n = bpf_probe_read_user_str(t->path, sizeof(t->path), arg);

	t->has_path = 1;
	t->path_flags = 0;
	if (n < 0) {
		t->path[0] = 0;
		cnt_add(CNT_PATH_ERR, 1);
	} else if (n == sizeof(t->path)) {
		/* A full buffer: the string may have gone on (a 255-byte path is counted too). */
		t->path_flags = REC_F_PATH_TRUNC;
		cnt_add(CNT_PATH_TRUNC, 1);
	}
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct probex_pt_regs *regs, long id)
{
	__u8 f = sys_flags_of(id);
	struct tstate *t;

	if (!(f & SYSF_ON))
		return 0;
	t = cur_state();
	if (!t)
		return 0;
	/* The arguments are still in the saved user registers at exit: only the time, and
	 * the path, which user memory may lose by then. */
	t->enter_ts = bpf_ktime_get_ns();
	t->enter_cpu = bpf_get_smp_processor_id();
	t->sys = sys_kind_of(id);
	t->nr = id;
	t->in_syscall = 1;
	t->has_path = 0;
	if (f & (SYSF_PATH0 | SYSF_PATH1))
		sys_read_path(t, regs, f);
	return 0;
}

/* Sum an iovec array's lengths, or SYS_BYTES_UNKNOWN when it is too long or unreadable.
 * One iovec per bpf_loop step: the verifier checks the step once, not each iteration of
 * an unrolled loop. */
struct iov_sum {
	const struct probex_iovec *iov;
	__u64 sum;
};

static long iov_sum_step(__u64 i, void *data)
{
	struct iov_sum *s = data;
	struct probex_iovec v;

	if (bpf_probe_read_user(&v, sizeof(v), &s->iov[i])) {
		s->sum = SYS_BYTES_UNKNOWN;
		return 1;
	}
	s->sum += v.iov_len;
	return 0;
}

static __always_inline __u64 iov_bytes(const struct probex_iovec *iov, __u64 n)
{
	struct iov_sum s = { .iov = iov };

	if (n > PROBEX_IOV_MAX)
		return SYS_BYTES_UNKNOWN;
	bpf_loop(n, iov_sum_step, &s, 0);
	return s.sum;
}

/* One iov_bytes for both kinds: the verifier walks each copy of its loop, once per
 * iteration. */
static __always_inline __u64 sys_bytes(__u8 f, const __u64 *args)
{
	const struct probex_iovec *iov = (const struct probex_iovec *)args[1];
	struct probex_user_msghdr m;
	__u64 n = args[2];

	if (!(f & SYSF_IOV)) {
		if (!(f & SYSF_MSG) || bpf_probe_read_user(&m, sizeof(m), (void *)args[1]))
			return SYS_BYTES_UNKNOWN;
		iov = (const struct probex_iovec *)m.msg_iov;
		n = m.msg_iovlen;
	}
	return iov_bytes(iov, n);
}

/* regs: the task's saved user registers, which hold the syscall's arguments from entry
 * to exit (x86-64: rdi, rsi, rdx, r10, r8). */
static __always_inline void syscall_fill(struct rec_syscall *r, struct tstate *t, __u8 kind,
					 __u64 now, __u64 pid_tgid, __u32 weight,
					 struct probex_pt_regs *regs)
{
	hdr_fill(&r->h, kind, now, pid_tgid);
	r->h.sub = t->sys;
	r->h.weight = weight ? weight : 1;
	r->enter_ts = t->enter_ts;
	r->enter_cpu = t->enter_cpu;
	r->nr = t->nr;
	r->_pad = 0;
	r->args[0] = regs->di;
	r->args[1] = regs->si;
	r->args[2] = regs->dx;
	r->args[3] = regs->r10;
	r->args[4] = regs->r8;
	r->bytes = SYS_BYTES_UNKNOWN;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct probex_pt_regs *regs, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	long id = regs->orig_ax;
	struct rec_syscall *r;
	struct tstate *t;
	bool stacked, path;
	__u32 w, size;
	__u64 now;
	__u8 f;

	/* rt_sigreturn restores the registers it returns with, orig_ax = -1 included: the
	 * open syscall says which one this is. */
	if (id < 0) {
		t = cur_state();
		if (!t || !t->in_syscall)
			return 0;
		id = t->nr;
	}
	f = sys_flags_of(id);
	if (!(f & SYSF_ON)) {
		offstack_exit_unrecorded(ctx);
		return 0;
	}
	t = cur_state();
	if (!t)
		return 0;
	offstack_flush(ctx, t);
	if (!t->in_syscall || t->nr != id) {
		/* A new thread or process starts by returning 0 from the clone/fork its
		 * parent entered: nothing was lost (strace counts the parent's call only). */
		if (!((f & SYSF_FORK) && ret == 0 && !t->in_syscall))
			cnt_add(CNT_UNPAIRED_EXIT, 1);
		return 0;
	}
	t->in_syscall = 0;
	now = bpf_ktime_get_ns();
	/* strace's rule for an error: a return value in -4095..-1. */
	stat_add(pid_tgid >> 32, STAT_KN(REC_SYSCALL, id), now - t->enter_ts,
		 STAT_TIMED | ((unsigned long)ret >= (unsigned long)-4095 ? STAT_ERR : 0));
	w = stack_take(t, SC_SYSCALL0 + t->sys, now);
	path = t->has_path;
	size = path ? sizeof(struct rec_syscall_path) : sizeof(struct rec_syscall);
	r = rec_begin(size, w > 0, &stacked);
	if (!r) {
		rec_drop(REC_SYSCALL);
		return 0;
	}
	syscall_fill(r, t, path ? REC_SYSCALL_PATH : REC_SYSCALL, now, pid_tgid, w, regs);
	r->ret = ret;
	if (f & (SYSF_IOV | SYSF_MSG))
		r->bytes = sys_bytes(f, r->args);
	if (path) {
		struct rec_syscall_path *p = (void *)r;

		r->h.flags |= t->path_flags;
		/* One helper call, not 64 inlined loads and stores the verifier walked on
		 * each path here. */
		bpf_probe_read_kernel(p->path, sizeof(p->path), t->path);
	}
	/* The user stack at exit is the one at enter (user space has not run since); the
	 * kernel stack is the syscall entry path either way. */
	rec_finish(ctx, r, size, stacked, true, true);
	return 0;
}

#endif
