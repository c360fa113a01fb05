/* Exact per-process counts the kernel keeps beside the records: one entry per (process,
 * record kind, syscall number or io_uring opcode), updated before the record is reserved,
 * so a record the ring buffer drops is still counted.  Shared by the BPF programs and
 * user space (record/stats.c), fixed-width types only. */
#ifndef PROBEX_BPF_STATS_H
#define PROBEX_BPF_STATS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Log2 latency buckets: bucket i holds [2^i, 2^(i+1)) ns (bucket 0 also 0), the last one
 * everything from 2^39 ns (9 minutes) up. */
#define STAT_HIST_BUCKETS	40

struct stat_key {
	__u32 tgid;		/* 0: a process the per-process map had no room for */
	__u16 kind;		/* enum rec_kind */
	__u16 nr;		/* syscall number, io_uring opcode, else 0 */
};

struct stat_val {
	__u64 count;
	__u64 errors;		/* syscalls returning -4095..-1, io_uring completions res < 0 */
	__u64 total_ns;		/* syscalls, io_uring, off-CPU: summed latency */
	__u64 hist[STAT_HIST_BUCKETS];
};

/* Slots of the spill array (per kind and number, every process together): syscall nr,
 * then one per record kind, then the io_uring opcodes. */
#define STAT_SPILL_KIND0	512	/* PROBEX_SYSCALL_MAX */
#define STAT_SPILL_IOU0		(STAT_SPILL_KIND0 + 32)
#define STAT_SPILL_IOU_OPS	64
#define STAT_SPILL_SLOTS	(STAT_SPILL_IOU0 + STAT_SPILL_IOU_OPS)

#endif
