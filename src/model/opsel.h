/* The operations of one kind in a window (and pid), paired within the window as the 0.1
 * viewer API pairs them: precomputed pairs wholly inside the window, plus an exact FIFO
 * recomputation for the pids whose window holds a lost exit (see ops.h).  Iterable in
 * (latency, row) order and in size order. */
#ifndef PROBEX_MODEL_OPSEL_H
#define PROBEX_MODEL_OPSEL_H

#include <stdbool.h>
#include <stdint.h>

#include "model/ops.h"

#define SEL_SIZES 1u	/* also build the size order */
#define SEL_RET 2u	/* the caller reads ret: a NULL ret on a counted pair is an error */

struct op_sel {
	const struct model *m;
	const struct op_index *ix;
	enum op op;		/* an enum op, or an extra operation (ops.h) */
	const char *name;
	uint64_t n;		/* selected records */
	bool all;		/* every precomputed record, no dirty ones: orders are identities */
	uint32_t *lat_order;	/* < ix->n: clean index; else dirty[v - ix->n] */
	uint32_t *size_order;	/* < ix->n: index into the size columns; else dirty_by_size[...] */
	struct op_rec *dirty, **dirty_by_size;
	uint64_t ndirty;
	uint32_t *dirty_pids;	/* pids recomputed exactly (sorted) */
	uint32_t ndirty_pids;
	char error[200];	/* set when the data fails the query (a NULL ret) */
};

/* 0, -ENOMEM, or -EINVAL with sel->error set. */
int op_sel__build(struct op_sel *sel, const struct model *m, const struct ops *o, enum op op,
		  const struct window *w, unsigned int flags);
void op_sel__free(struct op_sel *sel);

/* The k-th record in (latency, row) order. */
void op_sel__get(const struct op_sel *sel, uint64_t k, struct op_rec *out);
static inline uint64_t op_sel__lat(const struct op_sel *sel, uint64_t k)
{
	uint32_t v = sel->all ? (uint32_t)k : sel->lat_order[k];

	return v < sel->ix->n ? op_index__lat(sel->ix, v) : sel->dirty[v - sel->ix->n].lat;
}
/* The bytes and the memory change of the k-th record in (latency, row) order: cheaper
 * than op_sel__get for whole scans. */
static inline uint64_t op_sel__bytes(const struct op_sel *sel, uint64_t k)
{
	uint32_t v = sel->all ? (uint32_t)k : sel->lat_order[k];

	return v < sel->ix->n ? op_index__bytes(sel->ix, v) : sel->dirty[v - sel->ix->n].bytes;
}
static inline int64_t op_sel__delta(const struct op_sel *sel, uint64_t k)
{
	uint32_t v = sel->all ? (uint32_t)k : sel->lat_order[k];

	if (v >= sel->ix->n)
		return sel->dirty[v - sel->ix->n].delta;
	return sel->ix->delta ? sel->ix->delta[v] : 0;
}
/* The bytes of the k-th record in size order. */
static inline uint64_t op_sel__size(const struct op_sel *sel, uint64_t k)
{
	uint32_t v = sel->all ? (uint32_t)k : sel->size_order[k];

	return v < sel->ix->n ? op_index__bytes(sel->ix, sel->ix->s_lat[v]) :
				 sel->dirty_by_size[v - sel->ix->n]->bytes;
}
bool op_sel__is_dirty(const struct op_sel *sel, uint32_t pid);

#endif
