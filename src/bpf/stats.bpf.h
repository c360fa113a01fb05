/* SPDX-License-Identifier: GPL-2.0 */
/* Exact counts (bpf/stats.h): every program counts its event here before reserving its
 * record.  Included once, by probex.bpf.c, after record.bpf.h. */
#ifndef PROBEX_BPF_STATS_BPF_H
#define PROBEX_BPF_STATS_BPF_H

#include "bpf/stats.h"

/* Per CPU: the 300 threads of a burst hit one key from every CPU at once.  Allocated per
 * entry; resized by user space before load. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 32768);
	__type(key, struct stat_key);
	__type(value, struct stat_val);
} stats SEC(".maps");

/* Where an event goes when stats has no entry for it (full, or -EBUSY: a program nested
 * in one holding the bucket's lock; CNT_STATS_SPILL): every process together, so the
 * totals stay exact. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_SPILL_SLOTS);
	__type(key, __u32);
	__type(value, struct stat_val);
} stats_spill SEC(".maps");

static struct stat_val stat_zero;

/* w when v (below 2^2w) has a bit at or above bit w, else 0: no branch. */
#define STAT_HI(v, w) (((((v) >> (w)) + (1ull << (w)) - 1) >> (w)) * (w))

/* floor(log2(v)), 0 for 0, without branches: each one doubled the paths the verifier
 * walked through stat_add. */
static __always_inline __u32 stat_bucket(__u64 v)
{
	__u64 r = 0, s;

	s = STAT_HI(v, 32); v >>= s; r += s;
	s = STAT_HI(v, 16); v >>= s; r += s;
	s = STAT_HI(v, 8); v >>= s; r += s;
	s = STAT_HI(v, 4); v >>= s; r += s;
	s = STAT_HI(v, 2); v >>= s; r += s;
	r += STAT_HI(v, 1);
	return r < STAT_HIST_BUCKETS ? r : STAT_HIST_BUCKETS - 1;
}

static __always_inline __u32 stat_spill_slot(__u16 kind, __u16 nr)
{
	if (kind == REC_SYSCALL)
		return nr < STAT_SPILL_KIND0 ? nr : STAT_SPILL_KIND0 + kind;
	if (kind == REC_IO_URING_COMPLETE)
		return STAT_SPILL_IOU0 + (nr & (STAT_SPILL_IOU_OPS - 1));
	return STAT_SPILL_KIND0 + (kind & 31);
}

static __always_inline struct stat_val *stat_slot(__u32 tgid, __u16 kind, __u16 nr)
{
	struct stat_key k = { .tgid = tgid, .kind = kind, .nr = nr };
	struct stat_val *v = bpf_map_lookup_elem(&stats, &k);
	__u32 slot;

	if (v)
		return v;
	/* Fails with -EEXIST too when another CPU created it meanwhile. */
	bpf_map_update_elem(&stats, &k, &stat_zero, BPF_NOEXIST);
	v = bpf_map_lookup_elem(&stats, &k);
	if (v)
		return v;
	cnt_add(CNT_STATS_SPILL, 1);
	slot = stat_spill_slot(kind, nr);
	return bpf_map_lookup_elem(&stats_spill, &slot);
}

/* One event of process tgid: kind and nr as STAT_KN(kind, nr); a latency where
 * flags has STAT_TIMED, an error where STAT_ERR.  A function of its own (four scalar
 * arguments): inlined, it changed how the callers' stack-or-ring pointers were kept
 * and the verifier lost track of which was which.  Global: checked once per program,
 * not at each call with the caller's state. */
#define STAT_KN(kind, nr)	((__u32)(kind) << 16 | (__u16)(nr))
#define STAT_TIMED		1
#define STAT_ERR		2

__noinline int stat_add(__u32 tgid, __u32 kn, __u64 lat_ns, __u32 flags)
{
	struct stat_val *v = stat_slot(tgid, kn >> 16, kn & 0xffff);
	__u32 b;

	if (!v)
		return 0;
	/* Plain adds: each kind is counted by one program, which never nests in itself on a
	 * CPU, so a per-CPU value has one writer at a time (locked adds cost ~20 ns a syscall). */
	v->count++;
	if (flags & STAT_ERR)
		v->errors++;
	if (flags & STAT_TIMED) {
		v->total_ns += lat_ns;
		b = stat_bucket(lat_ns);
		if (b < STAT_HIST_BUCKETS)
			v->hist[b]++;
	}
	return 0;
}

#endif
