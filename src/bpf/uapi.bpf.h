/* User-space ABI structures, declared here without CO-RE.
 *
 * vmlinux.h marks every struct preserve_access_index, so each field access becomes a
 * CO-RE relocation, and at load time libbpf scans all of the kernel's BTF types (~150K)
 * once per struct named in a relocation.  These structs are ABI: their layout is fixed
 * for every kernel, like a syscall's argument order, so relocating them buys nothing and
 * cost four of the eleven scans (~25M instructions, several ms before the traced command
 * may start).  Kernel-internal structs (task_struct, mm_struct, ...) keep CO-RE.
 * Every access to these is a plain bpf_probe_read_*(), a context load, or a load
 * through a BTF pointer that the verifier checks against the kernel's own type. */
#ifndef PROBEX_BPF_UAPI_H
#define PROBEX_BPF_UAPI_H

/* <linux/uio.h> struct iovec */
struct probex_iovec {
	__u64 iov_base;
	__u64 iov_len;
};

/* <linux/socket.h> struct user_msghdr: only the iovec array and its length are read. */
struct probex_user_msghdr {
	__u64 msg_name;
	__s32 msg_namelen;
	__u32 _pad;
	__u64 msg_iov;
	__u64 msg_iovlen;
	__u64 msg_control;
	__u64 msg_controllen;
	__u32 msg_flags;
};

/* <linux/io_uring.h> struct io_uring_cqe (its first 16 bytes: a CQE32's extra half is
 * never read). */
struct probex_io_uring_cqe {
	__u64 user_data;
	__s32 res;
	__u32 flags;
};

/* x86-64 struct pt_regs: the order the entry code pushes a task's user registers in,
 * which ptrace (user_regs_struct), perf's sampled registers and <asm/ptrace.h> export
 * as ABI (later kernels only add fields after ss).  Read through the kernel's pointers
 * (tp_btf's regs, bpf_task_pt_regs()) with plain loads: one instruction each where six
 * CO-RE probe reads per syscall were six helper calls. */
struct probex_pt_regs {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax;
	__u64 ip, cs, flags, sp, ss;
};

/* <linux/bpf_perf_event.h> struct bpf_perf_event_data on x86-64: the sampled registers
 * and two counters. */
struct probex_perf_event_data {
	struct probex_pt_regs regs;
	__u64 sample_period, addr;
};

#endif
