/* Records the kernel programs send to user space, and the counters they keep.
 *
 * Shared by probex.bpf.c and user space; fixed-width types only.  Records are copied
 * verbatim into the spool file, so this layout is also the spool format: bump
 * SPOOL_VERSION (record/spool.h) when it changes. */
#ifndef PROBEX_BPF_RECORDS_H
#define PROBEX_BPF_RECORDS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "bpf/pyrecords.h"
#include "bpf/unwind.h"

#define PROBEX_COMM_LEN		16
#define PROBEX_MAX_FRAMES	127	/* per stack; what bpf_get_stack can return by default */
#define PROBEX_FILENAME_LEN	256
#define PROBEX_ARGV_LEN		4096	/* bytes of a command line kept at exec */
#define PROBEX_SYSCALL_MAX	512	/* syscall numbers probex can record: 0 .. this - 1 */
#define PROBEX_IOV_MAX		16	/* iovecs summed for a readv-family byte count */

/* Settings user space writes into the programs' read-only data before load. */

/* --stacks: which syscall, fault and scheduler events carry stacks (CPU samples always do). */
enum stack_mode {
	STACKS_SAMPLED,	/* default: at most one stack per thread and class per interval */
	STACKS_ALL,	/* a stack on every event */
	STACKS_NONE,	/* no stacks on syscall/fault/scheduler events */
};

/* --call-graph: how user stacks are taken (CPU samples, and sampled event stacks). */
enum call_graph {
	CG_AUTO,	/* default: as dwarf (CFI where an object has it, frame pointers else) */
	CG_FP,		/* frame-pointer walk in the kernel */
	CG_DWARF,	/* copy of the stack top + registers, unwound with CFI at finalize */
};

enum rec_kind {
	REC_SYSCALL = 1,	/* one enter/exit pair, paired in the kernel */
	REC_SCHED_SWITCH,
	REC_FORK,
	REC_EXIT,
	REC_EXEC,
	REC_PAGE_FAULT,
	REC_CPU_SAMPLE,
	REC_IO_URING_COMPLETE,
	REC_SYSCALL_UNFINISHED,	/* enter without exit, flushed by user space at the end */
	REC_SYSCALL_PATH,	/* REC_SYSCALL plus the path argument read at enter (drops: REC_SYSCALL) */
	REC_OFF_CPU,		/* one completed blocked interval of a traced thread */
	REC_WAKER,		/* the stack of a task waking a blocked traced thread (no row) */
	REC_OFF_KSTACK,		/* the kernel stack a long off-CPU interval blocked with (no row) */
	REC_PROBE,		/* a --probe firing (struct rec_probe) */
	REC_PROBE_STR,		/* the same with string arguments (struct rec_probe_str) */
	REC_PROBE_CALL,		/* a u: call's entry and return in one (struct rec_probe_call) */
	REC__COUNT,
};

/* The syscalls with event types of their own (x86-64 numbers are mapped to these in the
 * kernel), then SYS_OTHER for every other syscall, named by its number (rec_syscall.nr). */
enum sys_kind {
	SYS_READ,
	SYS_WRITE,
	SYS_MMAP,
	SYS_MUNMAP,
	SYS_BRK,
	SYS_FSYNC,
	SYS_FDATASYNC,
	SYS_IO_URING_SETUP,
	SYS_IO_URING_ENTER,
	SYS_IO_URING_REGISTER,
	SYS_OTHER,
	SYS__COUNT,
};

/* Classes that get their own stack-sampling clock per thread. */
enum stack_class {
	SC_SYSCALL0 = 0,			/* + enum sys_kind */
	SC_PAGE_FAULT = SYS__COUNT,
	SC_SCHED_SWITCH,	/* preempted or yielding: still runnable */
	SC_SCHED_BLOCK,		/* blocking: the stack of the off_cpu row it starts */
	SC_IO_URING_COMPLETE,
	SC_FORK,
	SC_WAKER,		/* wakeups a thread makes (its stack joins the wakee's off_cpu row) */
	SC_PROBE,		/* --probe entries, USDT and tracepoint firings */
	SC__COUNT,
};

#define REC_F_USTACK_TRUNC	0x1	/* user stack hit PROBEX_MAX_FRAMES: its root is missing */
#define REC_F_KSTACK_TRUNC	0x2
#define REC_F_USTACK_ERR	0x4	/* a user stack was wanted but the helper failed */
#define REC_F_KERNEL_MODE	0x8	/* cpu_sample: interrupted kernel mode */
#define REC_F_USTACK_COPY	0x10	/* user stack as a struct rec_ustack, see below */
#define REC_F_PATH_TRUNC	0x20	/* syscall path: longer than PROBEX_FILENAME_LEN - 1 */

/* Per-syscall settings (rodata sys_flags[nr]), written by user space before load. */
#define SYSF_ON		0x01	/* record this syscall */
#define SYSF_PATH0	0x02	/* argument 0 is a path: read it at enter */
#define SYSF_PATH1	0x04	/* argument 1 is a path */
#define SYSF_IOV	0x08	/* arguments 1, 2 are an iovec array and its length: sum them */
#define SYSF_MSG	0x10	/* argument 1 is a struct user_msghdr: sum its iovecs */
#define SYSF_FORK	0x20	/* the new task returns from it too, without having entered it */

#define SYS_BYTES_UNKNOWN	(~0ull)	/* rec_syscall.bytes when not decoded */

struct rec_hdr {
	__u64 ts;		/* bpf_ktime_get_ns (CLOCK_MONOTONIC); exit time for syscalls */
	__u32 tid;
	__u32 tgid;
	__u32 cpu;
	__u8 kind;		/* enum rec_kind */
	__u8 sub;		/* enum sys_kind for syscalls */
	__u8 ustack_n;		/* frames following the payload: user first, leaf first */
	__u8 kstack_n;		/* then kernel frames, leaf first */
	__u16 flags;		/* REC_F_* */
	__u16 _pad;
	__u32 weight;		/* events of this class/thread this stack stands for (>= 1) */
	char comm[PROBEX_COMM_LEN];
};

struct rec_syscall {
	struct rec_hdr h;	/* sub: enum sys_kind */
	__u64 enter_ts;
	__u32 enter_cpu;
	__u16 nr;		/* x86-64 syscall number */
	__u16 _pad;
	__u64 args[5];
	__s64 ret;
	__u64 bytes;		/* SYSF_IOV/SYSF_MSG: summed iovec lengths, else SYS_BYTES_UNKNOWN */
};

struct rec_syscall_path {
	struct rec_syscall s;
	char path[PROBEX_FILENAME_LEN];	/* NUL-terminated; REC_F_PATH_TRUNC when cut */
};

/* A traced thread was off CPU from h.ts (it blocked; the stack is the one it blocked
 * with) for `duration` ns, until it ran again.  Shorter intervals are only counted. */
struct rec_off_cpu {
	struct rec_hdr h;
	__u64 duration;
	__s64 prev_state;	/* as sched_switch reported it when the thread blocked */
	__u32 waker_pid;	/* 0: woken by no task seen (interrupt, timer) */
	__u32 waker_tgid;
	__u64 runnable;		/* ns from its wakeup to running again; REC_RUNNABLE_UNKNOWN */
	char waker_comm[PROBEX_COMM_LEN];	/* the waker's comm at the wakeup ("": none) */
};

#define REC_RUNNABLE_UNKNOWN	(~0ull)	/* no wakeup seen (woken before tracing began) */

/* sched_switch prev_state of a preempted task (the kernel's TASK_REPORT_MAX); 0 is a
 * task that stayed runnable (yielded).  Both are involuntary switches. */
#define SWITCH_STATE_PREEMPTED 256	/* 0x100 */

struct rec_sched_switch {
	struct rec_hdr h;	/* tid/tgid/comm: the traced side (prev if traced, else next) */
	__u32 prev_pid;
	__u32 prev_tgid;
	__u32 next_pid;
	__u32 next_tgid;
	__s64 prev_state;	/* as the sched_switch tracepoint reports it */
};

struct rec_fork {
	struct rec_hdr h;	/* the forking thread */
	__u32 child_pid;
	__u32 child_tgid;
	__u64 clone_flags;
};

struct rec_exit {
	struct rec_hdr h;
	__s32 code;		/* task->exit_code: wait(2) status encoding */
	__u8 group_dead;	/* last thread of the process */
	__u8 _pad[3];
};

struct rec_exec {
	struct rec_hdr h;	/* comm is the new one */
	__u32 old_tid;
	__u16 argv_len;		/* bytes of the command line (NUL-separated) following the record */
	__u16 argv_cut;		/* 1: the command line was longer than PROBEX_ARGV_LEN */
	char filename[PROBEX_FILENAME_LEN];
};

struct rec_page_fault {
	struct rec_hdr h;
	__u64 address;
	__u64 ip;
	__u64 error_code;
};

struct rec_cpu_sample {
	struct rec_hdr h;
};

struct rec_io_uring_complete {
	struct rec_hdr h;	/* tid/tgid/comm of the submitter; ts/cpu of the completion */
	__u64 submit_ts;
	__u64 user_data;
	__s32 res;
	__u32 cqe_flags;
	__u8 opcode;
	__u8 _pad[7];
};

/* Registers a CFI unwinder starts from, in x86-64 DWARF register order. */
enum ureg {
	UREG_AX, UREG_DX, UREG_CX, UREG_BX, UREG_SI, UREG_DI, UREG_BP, UREG_SP,
	UREG_R8, UREG_R9, UREG_R10, UREG_R11, UREG_R12, UREG_R13, UREG_R14, UREG_R15,
	UREG_IP,
	UREG__COUNT,
};

#define PROBEX_USTACK_CHUNK	1024
#define PROBEX_USTACK_MAX	(16 * PROBEX_USTACK_CHUNK)	/* largest --stack-copy */

/* A record with REC_F_USTACK_COPY has ustack_n == 0 and, after its fixed part, room for
 * PROBEX_MAX_FRAMES kernel frames (kstack_n used), then this (at rec_ustack_off), room for
 * UNW_MAX_FRAMES frames the kernel walked (nwalk used, leaf first), then `len` bytes of
 * the user stack from regs[UREG_SP] up, regs being the frame where the walk stopped.
 * The kernel builds the largest size; the recorder spools it packed: the fixed part, the
 * kstack_n frames, this (at rec_spool_ustack_off), the nwalk frames and the `len` bytes
 * — never the unused room. */
struct rec_ustack {
	__u64 regs[UREG__COUNT];
	__u32 len;
	__u16 nwalk;
	__u16 wflags;		/* REC_W_* */
};

#define REC_W_WHOLE	0x1	/* the walk reached the outermost frame: no copy */
#define REC_W_CAP	0x2	/* the walk stopped at UNW_MAX_FRAMES: the root is missing */

static inline __u32 rec_ustack_off(__u32 fixed)
{
	return fixed + PROBEX_MAX_FRAMES * 8;
}

static inline __u32 rec_spool_ustack_off(__u32 fixed, __u8 kstack_n)
{
	return fixed + kstack_n * 8;
}

/* A traced task woke traced thread wakee_tid, blocked since wakee_off_ts: the waker's
 * stack, for the off_cpu row (wakee_tid, wakee_off_ts) that will follow. */
struct rec_waker {
	struct rec_hdr h;	/* the waker */
	__u32 wakee_tid;
	__u32 _pad;
	__u64 wakee_off_ts;
};

/* A long off-CPU interval of traced thread h.tid, blocked since off_ts, whose blocking
 * switch took no stack: the kernel stack it blocked with, read when it ran again (h.ts).
 * Its user stack comes with the off_cpu record, sent from the thread itself before it
 * returns to user space. */
struct rec_off_kstack {
	struct rec_hdr h;	/* the blocked thread */
	__u64 off_ts;
};

/* --probe: user-chosen uprobes, USDT probes and tracepoints (userprobes.bpf.c). */
#define PROBEX_PROBES_MAX	64
#define PROBEX_PROBE_ARGS	8	/* values kept per firing (u: takes at most 6) */
#define PROBEX_PROBE_STRS	4	/* string arguments per probe */
#define PROBEX_PROBE_STR_LEN	256	/* bytes per string, its NUL included */

/* Argument types (rec_probe.args[] holds each as 64 bits, sign-extended for sN). */
enum probe_arg_type {
	PA_S8, PA_S16, PA_S32, PA_S64, PA_U8, PA_U16, PA_U32, PA_U64, PA_PTR, PA_STR,
	PA__COUNT,
};

/* rec_hdr.sub of a probe record. */
enum probe_phase {
	PROBE_ENTER,	/* u: function entry, with its arguments */
	PROBE_EXIT,	/* u: its return: ret, and enter_ts of the same call */
	PROBE_FIRE,	/* usdt:, tp: */
};

/* Where each argument comes from, written by user space per probe id (the map pspecs). */
struct probe_arg_spec {
	__u8 type;		/* enum probe_arg_type */
	__u8 slot;		/* PA_STR: its string slot */
	__u8 size;		/* tp: field bytes (1, 2, 4, 8) */
	__u8 loc;		/* tp: 0 value, 1 inline char array, 2 __data_loc string */
	__u16 off;		/* tp: field offset in the record */
	__u16 _pad;
};

struct probe_spec {
	__u8 nargs;
	__u8 nstr;
	__u8 _pad[6];
	struct probe_arg_spec arg[PROBEX_PROBE_ARGS];
};

struct rec_probe {
	struct rec_hdr h;	/* sub: enum probe_phase */
	__u32 id;		/* the --probe's index, in the order given */
	__u8 nargs;
	__u8 str_cut;		/* bit per string slot: longer than PROBEX_PROBE_STR_LEN - 1 */
	__u8 str_fault;		/* bit per string slot: unreadable, recorded as "" */
	__u8 _pad;
	__u64 enter_ts;		/* PROBE_EXIT: the call's entry (0: not seen) */
	__s64 ret;		/* PROBE_EXIT */
	__u64 args[PROBEX_PROBE_ARGS];
};

struct rec_probe_str {
	struct rec_probe p;
	char str[PROBEX_PROBE_STRS][PROBEX_PROBE_STR_LEN];
};

/* A u: call whose entry sent nothing (no stack sampled, no strings): sent at its return,
 * its arguments kept in the kernel meanwhile; finalize makes the enter and exit rows.
 * args[nargs] follow (the record is no longer than they need). */
struct rec_probe_call {
	struct rec_hdr h;	/* ts: the return */
	__u32 id;
	__u8 nargs;
	__u8 _pad[3];
	__u64 enter_ts;
	__s64 ret;
	__u64 args[];
};

/* The fixed part of a record of this kind (0: unknown kind). */
static inline __u32 rec_fixed_size(__u8 kind)
{
	switch (kind) {
	case REC_SYSCALL: case REC_SYSCALL_UNFINISHED: return sizeof(struct rec_syscall);
	case REC_SCHED_SWITCH: return sizeof(struct rec_sched_switch);
	case REC_FORK: return sizeof(struct rec_fork);
	case REC_EXIT: return sizeof(struct rec_exit);
	case REC_EXEC: return sizeof(struct rec_exec);
	case REC_PAGE_FAULT: return sizeof(struct rec_page_fault);
	case REC_CPU_SAMPLE: return sizeof(struct rec_cpu_sample);
	case REC_IO_URING_COMPLETE: return sizeof(struct rec_io_uring_complete);
	case REC_SYSCALL_PATH: return sizeof(struct rec_syscall_path);
	case REC_OFF_CPU: return sizeof(struct rec_off_cpu);
	case REC_WAKER: return sizeof(struct rec_waker);
	case REC_OFF_KSTACK: return sizeof(struct rec_off_kstack);
	case REC_PROBE: return sizeof(struct rec_probe);
	case REC_PROBE_STR: return sizeof(struct rec_probe_str);
	case REC_PROBE_CALL: return sizeof(struct rec_probe_call);
	default: return 0;
	}
}

/* Largest fixed part plus two full stacks: the per-CPU scratch record size. */
#define REC_MAX_FIXED	sizeof(struct rec_probe_str)
#define REC_MAX_SIZE	(REC_MAX_FIXED + 2 * PROBEX_MAX_FRAMES * 8 + PY_SECTION_MAX)

/* Per-CPU counters (one PERCPU_ARRAY slot holds them all). */
enum counter {
	CNT_RB_DROP0 = 0,		/* + enum rec_kind: ring buffer full, record lost */
	CNT_USTACK_ERR = REC__COUNT,	/* bpf_get_stack(user) failed */
	CNT_KSTACK_ERR,
	CNT_STACK_TRUNC,		/* a stack hit PROBEX_MAX_FRAMES */
	CNT_TRACED_FULL,		/* could not add a new process to the traced set */
	CNT_TSTATE_FULL,		/* per-thread state map full: syscall not paired */
	CNT_IOU_FULL,			/* io_uring in-flight map full: completion not paired */
	CNT_UNPAIRED_EXIT,		/* syscall exit without a recorded enter */
	CNT_SAMPLES_TOTAL,		/* CPU sampler invocations, all tasks */
	CNT_SAMPLES_TRACED,
	CNT_EVENTS,			/* records submitted */
	CNT_IOU_UNMATCHED,		/* io_uring completion in a traced process without a recorded
				 * submission (also those CNT_IOU_FULL could not keep) */
	CNT_USTACK_COPY_ERR,		/* no byte of a user stack could be copied */
	CNT_PATH_TRUNC,			/* a syscall path argument was cut to PROBEX_FILENAME_LEN */
	CNT_PATH_ERR,			/* a syscall path argument could not be read */
	CNT_OFFCPU_SHORT,		/* off-CPU intervals under --offcpu-min: counted, not sent */
	CNT_OFFCPU_SHORT_NS,		/* ... and their total duration */
	CNT_STATS_SPILL,		/* no per-process exact-count entry (map full, or its bucket
				 * busy under a nested program): counted for all together */
	CNT_OFFCPU_LATE_STACK,		/* long intervals whose sampled-out stack was taken at their end */
	CNT_OFFCPU_LATE_NOUSER,		/* ... of which the user stack could not be: not in a syscall */
	CNT_PROBE_STR_FAULT,		/* a --probe string argument could not be read: "" */
	CNT_PROBE_STR_CUT,		/* ... was cut to PROBEX_PROBE_STR_LEN - 1 bytes */
	CNT_PROBE_UNPAIRED,		/* a u: return without its entry (deeper than tracked) */
	CNT_ARGV_CUT,			/* a command line was cut to PROBEX_ARGV_LEN at exec */
	CNT_PY_STACKS,			/* stacks that carry Python frames */
	CNT_PY_CUT,			/* ... cut at PY_MAX_FRAMES */
	CNT_PY_BAD,			/* ... whose frame chain was unreadable or cyclic */
	CNT_PY_NO_THREAD,		/* a CPython process's thread with no thread state found */
	CNT__COUNT,
};

/* An off_cpu record held back until its thread, still in the syscall it blocked in, runs
 * BPF code of its own (its user stack can only be read from its own context). */
struct off_pending {
	__u64 ts;		/* the interval's start; 0: none pending */
	__u64 duration;
	__u64 runnable;
	__s64 state;
	__u32 waker_pid;
	__u32 waker_tgid;
	char waker_comm[PROBEX_COMM_LEN];
};

/* Per-thread state kept in the kernel: the open syscall and the stack-sampling clocks. */
struct tstate {
	__u64 enter_ts;
	__u32 enter_cpu;
	__u8 in_syscall;
	__u8 sys;		/* enum sys_kind */
	__u16 nr;		/* syscall number */
	__u64 last_stack_ts[SC__COUNT];
	__u32 since_stack[SC__COUNT];
	__u16 path_flags;	/* REC_F_PATH_TRUNC */
	__u8 has_path;
	__u8 _pad;
	__u32 waker_pid;	/* off-CPU: who woke it since off_ts */
	__u64 off_ts;		/* off-CPU: when it blocked, 0 when on CPU or runnable */
	__s64 off_state;
	__u32 waker_tgid;
	__u32 _pad2;
	__u64 wake_ts;		/* off-CPU: when it was woken since off_ts, 0: not yet */
	char waker_comm[PROBEX_COMM_LEN];	/* off-CPU: the waker's comm, with waker_pid */
	struct off_pending pend;	/* off-CPU: a long interval waiting for its user stack */
	char path[PROBEX_FILENAME_LEN];	/* path argument read at enter */
};

/* io_uring request submitted by a traced task, awaiting its completion. */
struct iou_inflight {
	__u64 submit_ts;
	__u64 user_data;
	__u32 tid;
	__u32 tgid;
	__u8 opcode;
	__u8 _pad[7];
	char comm[PROBEX_COMM_LEN];
};

#endif
