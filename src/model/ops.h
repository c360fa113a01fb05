/* Completed IO and memory operations, derived once at load with the 0.1 viewer API's rules:
 * enter and exit rows paired first-in-first-out per pid (a tid), io_uring latency as
 * completion minus submit, brk sizes as the change between consecutive successful breaks.
 *
 * Why pairs can be precomputed although a request pairs only the rows inside its
 * window: as long as a window holds no two consecutive enters of one (pid, op)
 * (a lost exit), its FIFO queue never holds more than one enter, so every exit pairs with
 * the enter right before it — the pairs precomputed here that lie wholly in the window.
 * Windows that do contain such a lost exit are recomputed exactly for that pid (opsel.c). */
#ifndef PROBEX_MODEL_OPS_H
#define PROBEX_MODEL_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

enum op { OP_READ, OP_WRITE, OP_FSYNC, OP_FDATASYNC, OP_IO_URING, OP_MMAP, OP_MUNMAP, OP_BRK,
	  OP__COUNT };

extern const char *const op_names[OP__COUNT];

/* Past the 0.1 viewer API's operations, every other syscall with enter and exit rows in the
 * trace is an operation of its own (op OP__COUNT..nops-1), named by its syscall. */
#define OP_MAX 128

/* One completed operation, as by_operation reports it. */
struct op_rec {
	uint64_t lat, bytes;
	uint64_t start;	/* earliest row time that must lie in a window for it to count */
	uint64_t end;	/* the exit (or completion) time: the reported ts_ns */
	int64_t delta;	/* memory ops: signed change for cumulative usage */
	uint32_t pid;
	uint32_t rn;	/* the exit row: (lat, rn) is the tie order */
	uint32_t srn;	/* the row whose stack is shown (the enter row; io_uring: completion) */
};

/* Records of one op in (lat, rn) order as columns ("latency positions"), the size order
 * and the row order (pid-major, by end time) as permutations of them.  A record keeps
 * only what the model cannot give back: its exit (or completion) row rn gives its end
 * time (model__ts) and its pid, its stack row is a one-byte distance back from rn, and
 * its start follows from end and latency (brk's excepted).  The two other orders reach
 * the columns through s_lat and g_idx (a size-order scan filters through a bitmap of
 * latency positions, see opsel.c).  Sizes are read through s_lat too: a size
 * distribution walks n values at random, a few ms at 10M events, against 8 B a record
 * for a sorted copy. */
#define SRN_FAR UINT8_MAX

struct op_index {
	uint64_t n;
	/* Latencies, ascending: 32 bits for the first nlat32, the 4.3 s and longer ones
	 * after them in lat_big.  See op_index__lat.  (While the index is built, every
	 * column is in row order and the wide values wait in the builder.) */
	uint32_t *lat32;
	uint64_t nlat32;
	uint64_t *lat_big;
	/* Sizes in 32 bits; UINT32_MAX there means (position, value) on the side, in
	 * position order.  See op_index__bytes. */
	uint32_t *bytes32;
	uint64_t nbytes_big;
	uint32_t *bytes_big_pos;
	uint64_t *bytes_big;
	/* Only brk's records start before their enter; io_uring's start at completion and
	 * every other op's at its enter, end - lat.  See op_index__start. */
	uint64_t *start;			/* NULL unless brk */
	bool start_at_end;			/* io_uring */
	int64_t *delta;				/* NULL unless a memory op (then all 0) */
	uint32_t *rn;				/* the exit (or completion) row */
	/* The row whose stack is shown (the enter row; io_uring: the completion) is
	 * srn_back rows before rn; SRN_FAR there means (position, row) on the side, in
	 * position order.  See op_index__srn. */
	uint8_t *srn_back;
	uint64_t nsrn_far;
	uint32_t *srn_far_pos, *srn_far;
	uint32_t *s_lat;			/* size position → latency position */
	uint32_t *s_pos;			/* latency position → size position */
	uint32_t *g_idx;			/* row order → latency position */
	uint64_t *g_off;			/* per model pid index: first record in row order */
	/* Two enters of one pid in a row (a lost exit): windows holding both are dirty. */
	uint64_t nlost;
	uint32_t *lost_pid;
	uint64_t *lost_t1, *lost_t2;
	/* Pairs whose exit has a NULL ret: a query counting one fails (ret is required). */
	uint64_t npoison;
	uint32_t *poison_pid, *poison_rn;
	uint64_t *poison_start, *poison_end;
};

/* Latency of the record at latency position k. */
static inline uint64_t op_index__lat(const struct op_index *ix, uint64_t k)
{
	return k < ix->nlat32 ? ix->lat32[k] : ix->lat_big[k - ix->nlat32];
}

/* Size of the record at latency position k. */
static inline uint64_t op_index__bytes(const struct op_index *ix, uint64_t k)
{
	if (ix->bytes32[k] != UINT32_MAX)
		return ix->bytes32[k];
	return ix->bytes_big[model__side_find(ix->bytes_big_pos, ix->nbytes_big, k)];
}

/* End (the exit or completion time) of the record at latency position k. */
static inline uint64_t op_index__end(const struct model *m, const struct op_index *ix, uint64_t k)
{
	return model__ts(m, ix->rn[k]);
}

/* Start of the record at latency position k. */
static inline uint64_t op_index__start(const struct model *m, const struct op_index *ix, uint64_t k)
{
	if (ix->start)
		return ix->start[k];
	return ix->start_at_end ? op_index__end(m, ix, k) : op_index__end(m, ix, k) - op_index__lat(ix, k);
}

/* The stack row of the record at latency position k. */
static inline uint32_t op_index__srn(const struct op_index *ix, uint64_t k)
{
	if (ix->srn_back[k] != SRN_FAR)
		return ix->rn[k] - ix->srn_back[k];
	return ix->srn_far[model__side_find(ix->srn_far_pos, ix->nsrn_far, k)];
}

/* mmap/munmap/brk records in (end, rn) order: the cumulative-usage timeline. */
struct mem_timeline {
	uint64_t n;
	uint64_t *start, *end;
	int64_t *delta;
	uint32_t *pid, *rn;
	uint8_t *op;
};

/* mmap/munmap enter rows (for syscall_latency_stats' byte sums), in row order. */
struct enter_rows {
	uint64_t n;
	uint64_t *ts, *count;
	uint32_t *pid, *rn;
	bool *has_count;
};

struct ops {
	struct op_index op[OP_MAX];
	int nops;			/* OP__COUNT + the other syscalls' operations */
	char *extra_name[OP_MAX];	/* [op] for op >= OP__COUNT */
	bool extra_bytes[OP_MAX];	/* its ret is a byte count (pread64, sendto, ...) */
	struct mem_timeline mem;
	struct enter_rows mmap_enters, munmap_enters;
	/* Row code → op and role, for the exact recomputation. */
	int8_t code_op[TRACE_MAX_TYPES], code_role[TRACE_MAX_TYPES];
};

enum op_role { ROLE_NONE, ROLE_ENTER, ROLE_EXIT, ROLE_COMPLETE };

/* The name by_operation reports for op. */
const char *ops__name(const struct ops *o, int op);

/* -ECANCELED as soon as *cancel is set (checked per pid). */
int ops__build(struct ops *o, const struct model *m, const volatile bool *cancel);
void ops__free(struct ops *o);

#endif
