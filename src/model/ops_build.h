/* What building the operations (ops.h) shares between its steps: ops.c finds the
 * operations and runs the steps, ops_pair.c pairs each pid's rows into records,
 * ops_index.c puts each op's records in their orders. */
#ifndef PROBEX_MODEL_OPS_BUILD_H
#define PROBEX_MODEL_OPS_BUILD_H

#include "common/bigmem.h"
#include "common/bsearch.h"
#include "model/ops.h"

/* A growable list of records or of small tuples. */
struct vec {
	void *p;
	uint64_t n, cap;
	size_t elem;
};

static inline void *vec__push(struct vec *v)
{
	if (v->n == v->cap) {
		uint64_t cap = v->cap ? v->cap * 2 : 256;
		void *p = bigmem__grow(v->p, v->n * v->elem, cap * v->elem);

		if (!p)
			return NULL;
		v->p = p;
		v->cap = cap;
	}
	return (char *)v->p + v->elem * v->n++;
}

struct lost { uint32_t pid; uint64_t t1, t2; };
struct poison { uint32_t pid, rn; uint64_t start, end; };

/* Records go straight into their op's index columns, in row order, with room for one per
 * exit row (an upper bound: untouched pages of the columns are never resident); the
 * columns are then permuted into latency order one at a time (ops_build__index).  No record
 * is copied through an intermediate array, so pairing costs little more than the index. */
struct builder {
	const struct model *m;
	struct ops *o;
	uint64_t cap[OP_MAX];
	uint64_t b_cursor, a_cursor;	/* model__b, model__a: io_uring completions come in row order */
	struct vec lost[OP_MAX], poison[OP_MAX], mem, mmap_e, munmap_e;
	/* Per op, what does not fit the narrow columns, by row-order position. */
	struct vec lat_big[OP_MAX], bytes_big[OP_MAX], srn_far[OP_MAX];
};

struct pos_val { uint64_t val; uint32_t pos; };

/* The value side (positions ascending) keeps for row-order position i, which it has. */
static inline uint64_t side_val(const struct vec *side, uint64_t i)
{
	const struct pos_val *pv = side->p;

	return pv[BSEARCH_FIRST((uint64_t)0, side->n, k, pv[k].pos < i)].val;
}

static inline bool is_mem(int op)
{
	return op == OP_MMAP || op == OP_MUNMAP || op == OP_BRK;
}

struct enter_tuple { uint64_t ts, count; uint32_t pid, rn; bool has; };
struct mem_tuple { uint64_t start, end; int64_t delta; uint32_t pid, rn; uint8_t op; };

#define ALLOC(p, n) ((p) = bigmem__alloc(((n) ? (n) : 1) * sizeof(*(p))))

/* One pid's rows [lo, hi): pair, and record what a window of the whole trace counts. */
int ops_build__pid(struct builder *b, const struct ops *o, uint32_t pid, uint64_t lo, uint64_t hi);
/* The records of op, in row order in ix's columns, become the latency order. */
int ops_build__index(struct op_index *ix, const struct model *m, struct builder *b, int op);
int ops_build__timeline(struct mem_timeline *t, struct vec *v, uint64_t min_ts);
int ops_build__enters(struct enter_rows *e, struct vec *v);

#endif
