// SPDX-License-Identifier: GPL-2.0
/* Kernel side of probex: what the traced process tree does, as compact records.
 *
 * Design choices (doc/design.md, "Kernel side"):
 *  - tp_btf programs with CO-RE reads: no tracefs, no hard-coded tracepoint offsets.
 *  - One program pair on sys_enter/sys_exit for every syscall, filtered by number, with
 *    the enter/exit pairing done here (per-thread state) so a syscall costs one record.
 *  - Records are submitted without waking the consumer unless the buffer is filling up;
 *    user space polls on a short timer.  Per-record wake-ups dominated the cost otherwise.
 *  - Stacks cost ~5 us each on this VM, so by default they are sampled per thread and
 *    event class, each stack carrying the number of events it stands for.
 *  - Every lost record, failed stack and full map is counted.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf/records.h"
#include "bpf/uapi.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#include "bpf/record.bpf.h"
#include "bpf/stats.bpf.h"

#include "bpf/offstack.bpf.h"
#include "bpf/syscall.bpf.h"
#include "bpf/offcpu.bpf.h"
#include "bpf/ksym.bpf.h"

/* The state the sched_switch tracepoint reports for prev (kernel's
 * __trace_sched_switch_state): preempted → TASK_REPORT_MAX, else the highest
 * reported state bit. */
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

static __always_inline __s64 switch_state(bool preempt, struct task_struct *p)
{
	unsigned int st, s;

	if (preempt)
		return SWITCH_STATE_PREEMPTED;
	if (bpf_core_field_exists(p->__state))
		st = BPF_CORE_READ(p, __state);
	else
		st = BPF_CORE_READ((struct task_struct___old *)p, state);
	if (st == 0x402)	/* TASK_IDLE */
		return 0x80;
	/* The highest bit, without branches: each one doubled the paths the verifier walked
	 * through the rest of sched_switch. */
	s = (st | BPF_CORE_READ(p, exit_state)) & 0x7f;
	s |= s >> 1;
	s |= s >> 2;
	s |= s >> 4;
	return s - (s >> 1);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct tstate *t = task_state(prev);
	bool prev_traced = t != NULL, stacked;
	struct rec_sched_switch *r;
	__u32 prev_tgid, next_tgid;
	__s64 state;
	__u64 now;
	__u32 w = 0;

	if (!prev_traced && !task_state(next))
		return 0;
	prev_tgid = BPF_CORE_READ(prev, tgid);
	next_tgid = BPF_CORE_READ(next, tgid);
	stat_add(prev_traced ? prev_tgid : next_tgid, STAT_KN(REC_SCHED_SWITCH, 0), 0, 0);
	/* prev runs this program: a held interval of its own goes out with its user stack. */
	if (prev_traced)
		offstack_flush(ctx, t);
	now = bpf_ktime_get_ns();
	state = switch_state(preempt, prev);
	offcpu_out(t, state, now);
	offcpu_in(next, now);
	/* Stacks only describe prev: this program runs in prev's context.  Blocking has a
	 * sampling clock of its own: a preemption just before a long block must not take
	 * the stack its off_cpu row is read with. */
	if (prev_traced)
		w = stack_take(t, switch_blocks(state) ? SC_SCHED_BLOCK : SC_SCHED_SWITCH, now);
	r = rec_open(sizeof(*r), REC_SCHED_SWITCH, w, now, bpf_get_current_pid_tgid(), &stacked);
	if (!r)
		return 0;
	r->prev_pid = BPF_CORE_READ(prev, pid);
	r->prev_tgid = prev_tgid;
	r->next_pid = BPF_CORE_READ(next, pid);
	r->next_tgid = next_tgid;
	r->prev_state = state;
	if (prev_traced) {
		r->h.tid = r->prev_pid;
		r->h.tgid = prev_tgid;
		bpf_probe_read_kernel_str(r->h.comm, sizeof(r->h.comm), prev->comm);
	} else {
		r->h.tid = r->next_pid;
		r->h.tgid = next_tgid;
		bpf_probe_read_kernel_str(r->h.comm, sizeof(r->h.comm), next->comm);
	}
	rec_finish(ctx, r, sizeof(*r), stacked, true, true);
	return 0;
}

/* task_newtask fires in copy_process for every new task — forks, threads and io_uring
 * workers (which never pass sched_process_fork) — and gives the clone flags. */
SEC("tp_btf/task_newtask")
int BPF_PROG(task_newtask, struct task_struct *task, u64 clone_flags)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct tstate *t = cur_state();
	struct rec_fork *r;
	__u32 child_tgid;
	__u8 one = 1;
	bool stacked;

	if (!t)
		return 0;
	/* The new task is traced from its first instruction: threads, processes and
	 * io_uring workers alike. */
	if (!bpf_task_storage_get(&tstates, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE))
		cnt_add(CNT_TSTATE_FULL, 1);
	child_tgid = BPF_CORE_READ(task, tgid);
	/* The traced set is the process tree probex stops and waits for: with -a, only the
	 * command's tree, never the rest of the machine. */
	if (child_tgid != (pid_tgid >> 32) &&
	    (!trace_all || bpf_map_lookup_elem(&traced, &(__u32){ pid_tgid >> 32 })) &&
	    bpf_map_update_elem(&traced, &child_tgid, &one, BPF_ANY))
		cnt_add(CNT_TRACED_FULL, 1);
	if (child_tgid != (pid_tgid >> 32))
		unw_fork(pid_tgid >> 32, child_tgid);
	/* A fork's kernel stack (copy_process) costs ~20 us to unwind here:
	 * sampled like the other classes unless --stacks=all. */
	stat_add(pid_tgid >> 32, STAT_KN(REC_FORK, 0), 0, 0);
	r = rec_open_sampled(sizeof(*r), REC_FORK, t, SC_FORK, bpf_ktime_get_ns(), pid_tgid, &stacked);
	if (!r)
		return 0;
	r->child_pid = BPF_CORE_READ(task, pid);
	r->child_tgid = child_tgid;
	r->clone_flags = clone_flags;
	rec_finish(ctx, r, sizeof(*r), stacked, true, true);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_process_exit, struct task_struct *p)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32;
	struct tstate *t;
	struct rec_exit *r;
	bool group_dead, stacked;

	t = cur_state();
	if (!t)
		return 0;
	offstack_flush(ctx, t);
	/* signal->live was decremented before this tracepoint: 0 means last thread. */
	group_dead = BPF_CORE_READ(p, signal, live.counter) == 0;

	if (t->in_syscall) {
		struct rec_syscall *s;

		stat_add(tgid, STAT_KN(REC_SYSCALL_UNFINISHED, t->nr), 0, 0);
		s = bpf_ringbuf_reserve(&rb, sizeof(*s), 0);

		if (s) {
			syscall_fill(s, t, REC_SYSCALL_UNFINISHED, t->enter_ts, pid_tgid, 1,
				     (struct probex_pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf()));
			s->ret = 0;
			bpf_ringbuf_submit(s, rb_flags());
		} else {
			rec_drop(REC_SYSCALL_UNFINISHED);
		}
	}

	stat_add(tgid, STAT_KN(REC_EXIT, 0), 0, 0);
	r = rec_begin(sizeof(*r), stack_mode != STACKS_NONE, &stacked);
	if (r) {
		hdr_fill(&r->h, REC_EXIT, bpf_ktime_get_ns(), pid_tgid);
		r->code = BPF_CORE_READ(p, exit_code);
		r->group_dead = group_dead;
		r->_pad[0] = r->_pad[1] = r->_pad[2] = 0;
		/* The kernel side of an exit is always do_exit: only --stacks=all pays for it. */
		rec_finish(ctx, r, sizeof(*r), stacked, true, stack_mode == STACKS_ALL);
	} else {
		rec_drop(REC_EXIT);
	}
	/* The task's storage goes with the task. */
	if (group_dead)
		bpf_map_delete_elem(&traced, &tgid);
	return 0;
}

/* The new image's command line, just copied onto its stack by the kernel (so present). */
static __always_inline void exec_argv(struct rec_exec *r, struct task_struct *p)
{
	struct mm_struct *mm = BPF_CORE_READ(p, mm);
	__u64 s = BPF_CORE_READ(mm, arg_start), e = BPF_CORE_READ(mm, arg_end);
	__u64 n = e > s ? e - s : 0;

	r->argv_cut = n > PROBEX_ARGV_LEN;
	if (r->argv_cut) {
		n = PROBEX_ARGV_LEN;
		cnt_add(CNT_ARGV_CUT, 1);
	}
	if (n > PROBEX_ARGV_LEN)	/* for the verifier */
		n = 0;
	if (n && bpf_probe_read_user((char *)(r + 1), n, (void *)s))
		n = 0;
	r->argv_len = (__u16)n;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_process_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct rec_exec *r;

	if (!cur_state()) {
		if (!root_tgid || (pid_tgid >> 32) != root_tgid)
			return 0;
		root_tgid = 0;
		if (!bpf_task_storage_get(&tstates, bpf_get_current_task_btf(), 0,
					  BPF_LOCAL_STORAGE_GET_F_CREATE)) {
			cnt_add(CNT_TSTATE_FULL, 1);
			return 0;
		}
	}
	stat_add(pid_tgid >> 32, STAT_KN(REC_EXEC, 0), 0, 0);
	unw_exec(pid_tgid >> 32);
	/* Room for the command line; the consumer spools only argv_len of it. */
	r = bpf_ringbuf_reserve(&rb, sizeof(*r) + PROBEX_ARGV_LEN, 0);
	if (!r) {
		rec_drop(REC_EXEC);
		return 0;
	}
	hdr_fill(&r->h, REC_EXEC, bpf_ktime_get_ns(), pid_tgid);
	r->old_tid = old_pid;
	if (bpf_probe_read_kernel_str(r->filename, sizeof(r->filename), BPF_CORE_READ(bprm, filename)) < 0)
		r->filename[0] = 0;
	exec_argv(r, p);
	bpf_ringbuf_submit(r, rb_flags());
	cnt_add(CNT_EVENTS, 1);
	return 0;
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(page_fault_user, unsigned long address, struct probex_pt_regs *regs, unsigned long error_code)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct rec_page_fault *r;
	struct tstate *t;
	bool stacked;

	t = cur_state();
	if (!t)
		return 0;
	stat_add(pid_tgid >> 32, STAT_KN(REC_PAGE_FAULT, 0), 0, 0);
	r = rec_open_sampled(sizeof(*r), REC_PAGE_FAULT, t, SC_PAGE_FAULT, bpf_ktime_get_ns(),
			     pid_tgid, &stacked);
	if (!r)
		return 0;
	r->address = address;
	r->ip = regs->ip;
	r->error_code = error_code;
	rec_finish(ctx, r, sizeof(*r), stacked, true, true);
	return 0;
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(io_uring_submit_req, struct io_kiocb *req)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct iou_inflight v = {};
	__u64 key = (__u64)req;

	if (!cur_state())
		return 0;
	v.submit_ts = bpf_ktime_get_ns();
	v.user_data = BPF_CORE_READ(req, cqe.user_data);
	v.tid = (__u32)pid_tgid;
	v.tgid = pid_tgid >> 32;
	v.opcode = BPF_CORE_READ(req, opcode);
	bpf_get_current_comm(v.comm, sizeof(v.comm));
	if (bpf_map_update_elem(&iou_inflight, &key, &v, BPF_ANY))
		cnt_add(CNT_IOU_FULL, 1);
	return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(io_uring_complete, void *ctx_, void *req, struct probex_io_uring_cqe *cqe)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), key = (__u64)req;
	struct rec_io_uring_complete *r;
	struct iou_inflight *v;
	struct probex_io_uring_cqe cq;
	struct tstate *t = NULL;
	bool stacked, same;
	__u32 flags, w = 0;
	__u64 now;

	v = bpf_map_lookup_elem(&iou_inflight, &key);
	if (!v) {
		__u32 tgid = pid_tgid >> 32;

		/* The tracepoint is system-wide: a completion is only ours to miss when a
		 * traced process posts it (its submission fell out, or came before tracing). */
		if (bpf_map_lookup_elem(&traced, &tgid))
			cnt_add(CNT_IOU_UNMATCHED, 1);
		return 0;
	}
	now = bpf_ktime_get_ns();
	if (bpf_probe_read_kernel(&cq, sizeof(cq), cqe))
		cq.res = 0, cq.flags = 0;
	stat_add(v->tgid, STAT_KN(REC_IO_URING_COMPLETE, v->opcode), now - v->submit_ts,
		 STAT_TIMED | (cq.res < 0 ? STAT_ERR : 0));
	flags = cq.flags;
	/* A stack only means something when the submitter itself posts the completion. */
	same = (pid_tgid >> 32) == v->tgid;
	if (same) {
		t = cur_state();
		w = stack_take(t, SC_IO_URING_COMPLETE, now);
	}
	r = rec_open(sizeof(*r), REC_IO_URING_COMPLETE, w, now, pid_tgid, &stacked);
	if (!r)
		goto out;
	r->h.tid = v->tid;
	r->h.tgid = v->tgid;
	__builtin_memcpy(r->h.comm, v->comm, sizeof(r->h.comm));
	r->submit_ts = v->submit_ts;
	r->user_data = v->user_data;
	r->res = cq.res;
	r->cqe_flags = flags;
	r->opcode = v->opcode;
	__builtin_memset(r->_pad, 0, sizeof(r->_pad));
	rec_finish(ctx, r, sizeof(*r), stacked, true, true);
out:
	/* Multishot requests post several CQEs; only the last one (no F_MORE) ends them. */
	if (!(flags & (1u << 1) /* IORING_CQE_F_MORE */))
		bpf_map_delete_elem(&iou_inflight, &key);
	return 0;
}

SEC("perf_event")
int cpu_sample(struct probex_perf_event_data *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct rec_cpu_sample *r;
	bool kernel_mode;

	cnt_add(CNT_SAMPLES_TOTAL, 1);
	if (!pid_tgid || !cur_state())
		return 0;
	cnt_add(CNT_SAMPLES_TRACED, 1);
	stat_add(pid_tgid >> 32, STAT_KN(REC_CPU_SAMPLE, 0), 0, 0);
	/* Full-width load: the verifier rejects narrow reads of this context field. */
	kernel_mode = (*(volatile __u64 *)&ctx->regs.cs & 3) == 0;
	if (ustack_copy_bytes) {
		r = rec_ustack_begin(sizeof(*r));
		if (!r) {
			rec_drop(REC_CPU_SAMPLE);
			return 0;
		}
		hdr_fill(&r->h, REC_CPU_SAMPLE, bpf_ktime_get_ns(), pid_tgid);
		if (kernel_mode)
			r->h.flags |= REC_F_KERNEL_MODE;
		rec_ustack_send(ctx, r, sizeof(*r), kernel_mode);
		return 0;
	}
	r = scratch_get();
	if (!r) {
		rec_drop(REC_CPU_SAMPLE);
		return 0;
	}
	hdr_fill(&r->h, REC_CPU_SAMPLE, bpf_ktime_get_ns(), pid_tgid);
	if (kernel_mode)
		r->h.flags |= REC_F_KERNEL_MODE;
	/* In user mode the sample's registers are the user ones; in kernel mode the user
	 * stack comes from the task's saved user registers, so those samples get both. */
	rec_finish_regs(ctx, r, sizeof(*r), true, true, kernel_mode, !kernel_mode,
			*(volatile __u64 *)&ctx->regs.ip, *(volatile __u64 *)&ctx->regs.bp);
	return 0;
}
