#include <errno.h>
#include <stdlib.h>

#include "common/sort.h"
#include "model/ops_build.h"

/* Record i's value of a narrowed column: in it, or (UINT32_MAX there) on the side. */
static uint64_t wide_at(const uint32_t *narrow, const struct vec *side, uint64_t i)
{
	return narrow[i] != UINT32_MAX ? narrow[i] : side_val(side, i);
}

/* col[i] = col[perm[i]], through a fresh array: one column's worth of extra memory. */
#define GATHER(col, perm, n)                                                           \
	do {                                                                           \
		__typeof__(col) g_;                                                    \
		if (!ALLOC(g_, n))                                                     \
			goto cleanup;                                                  \
		for (uint64_t i_ = 0; i_ < (n); i_++)                                  \
			g_[i_] = (col)[(perm)[i_]];                                    \
		free(col);                                                             \
		(col) = g_;                                                            \
	} while (0)

/* A side part by row-order position, re-keyed by latency position (perm: latency position
 * -> row-order position): the entries of the positions whose narrow value (already in
 * latency order) is `far`. */
#define RESIDE(narrow, far, side, n, cnt, pos_out, val_out, vtype)                         \
	do {                                                                               \
		uint64_t k_ = 0;                                                           \
		(cnt) = (side)->n;                                                         \
		if (!ALLOC(pos_out, cnt) || !ALLOC(val_out, cnt))                          \
			goto cleanup;                                                      \
		for (uint64_t i_ = 0; i_ < (n) && k_ < (cnt); i_++) {                      \
			if ((narrow)[i_] != (far))                                         \
				continue;                                                  \
			(pos_out)[k_] = (uint32_t)i_;                                      \
			(val_out)[k_++] = (vtype)side_val(side, perm[i_]);                 \
		}                                                                          \
	} while (0)

/* Row order: records were made pid by pid (pids ascending), each pid's in time order. */
static int row_offsets(struct op_index *ix, const struct model *m)
{
	if (!(ix->g_off = calloc(m->npids + 1, sizeof(*ix->g_off))))
		return -ENOMEM;
	for (uint64_t i = 0, p = 0; i < ix->n; i++) {
		while (ix->rn[i] >= m->pid_off[p + 1])
			p++;
		ix->g_off[p + 1]++;
	}
	for (uint32_t p = 0; p < m->npids; p++)
		ix->g_off[p + 1] += ix->g_off[p];
	return 0;
}

/* perm: latency position → row-order position.  Records come in row order, so a stable
 * sort by latency gives (lat, rn).  The 4.3 s and longer latencies, the last, go to
 * lat_big in order. */
static int latency_order(struct op_index *ix, const struct vec *lat_big, uint64_t *key,
			 uint32_t *perm)
{
	uint64_t n = ix->n, maxlat = 0;

	for (uint64_t i = 0; i < n; i++) {
		key[i] = wide_at(ix->lat32, lat_big, i);
		maxlat = key[i] > maxlat ? key[i] : maxlat;
		perm[i] = (uint32_t)i;
	}
	if (sort__radix_perm(key, perm, n, sort__bits(maxlat)))
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++)
		ix->g_idx[perm[i]] = (uint32_t)i;
	while (ix->nlat32 < n && key[perm[ix->nlat32]] < UINT32_MAX)
		ix->nlat32++;
	if (!ALLOC(ix->lat_big, n - ix->nlat32))
		return -ENOMEM;
	for (uint64_t i = ix->nlat32; i < n; i++)
		ix->lat_big[i - ix->nlat32] = key[perm[i]];
	return 0;
}

/* Every column from row order into latency order (perm from latency_order). */
static int permute_columns(struct op_index *ix, struct builder *b, int op, const uint32_t *perm)
{
	uint64_t n = ix->n;

	GATHER(ix->lat32, perm, n);
	GATHER(ix->bytes32, perm, n);
	RESIDE(ix->bytes32, UINT32_MAX, &b->bytes_big[op], n, ix->nbytes_big, ix->bytes_big_pos,
	       ix->bytes_big, uint64_t);
	GATHER(ix->srn_back, perm, n);
	RESIDE(ix->srn_back, SRN_FAR, &b->srn_far[op], n, ix->nsrn_far, ix->srn_far_pos,
	       ix->srn_far, uint32_t);
	if (ix->start)
		GATHER(ix->start, perm, n);
	if (ix->delta)
		GATHER(ix->delta, perm, n);
	GATHER(ix->rn, perm, n);
	return 0;
cleanup:
	return -ENOMEM;
}

/* The size order, sorted into perm (size position → latency position), and s_pos. */
static int size_order(struct op_index *ix, uint64_t *key, uint32_t *perm)
{
	uint64_t n = ix->n, maxb = 0;

	for (uint64_t i = 0; i < n; i++) {
		key[i] = op_index__bytes(ix, i);
		maxb = key[i] > maxb ? key[i] : maxb;
		perm[i] = (uint32_t)i;
	}
	return sort__radix_perm(key, perm, n, sort__bits(maxb)) ? -ENOMEM : 0;
}

/* The lost exits and the pairs with a NULL ret, into their columns. */
static int copy_lost(struct op_index *ix, const struct vec *lost, const struct vec *poison)
{
	ix->nlost = lost->n;
	if (!ALLOC(ix->lost_pid, lost->n) || !ALLOC(ix->lost_t1, lost->n) || !ALLOC(ix->lost_t2, lost->n))
		return -ENOMEM;
	for (uint64_t i = 0; i < lost->n; i++) {
		const struct lost *l = (const struct lost *)lost->p + i;

		ix->lost_pid[i] = l->pid;
		ix->lost_t1[i] = l->t1;
		ix->lost_t2[i] = l->t2;
	}
	ix->npoison = poison->n;
	if (!ALLOC(ix->poison_pid, poison->n) || !ALLOC(ix->poison_rn, poison->n) ||
	    !ALLOC(ix->poison_start, poison->n) || !ALLOC(ix->poison_end, poison->n))
		return -ENOMEM;
	for (uint64_t i = 0; i < poison->n; i++) {
		const struct poison *p = (const struct poison *)poison->p + i;

		ix->poison_pid[i] = p->pid;
		ix->poison_rn[i] = p->rn;
		ix->poison_start[i] = p->start;
		ix->poison_end[i] = p->end;
	}
	return 0;
}

/* The records, in row order in ix's columns, become the latency order; the size and row
 * orders are permutations of it. */
int ops_build__index(struct op_index *ix, const struct model *m, struct builder *b, int op)
{
	uint64_t n = ix->n, *key = NULL;
	uint32_t *perm = NULL;
	int err = -ENOMEM;

	if (!ALLOC(key, n) || !ALLOC(perm, n) || !ALLOC(ix->g_idx, n) || row_offsets(ix, m) ||
	    latency_order(ix, &b->lat_big[op], key, perm) || permute_columns(ix, b, op, perm) ||
	    size_order(ix, key, perm))
		goto cleanup;
	/* The key column goes before s_pos comes: one column's worth of extra memory. */
	free(key);
	key = NULL;
	if (!ALLOC(ix->s_pos, n))
		goto cleanup;
	for (uint64_t i = 0; i < n; i++)
		ix->s_pos[perm[i]] = (uint32_t)i;
	ix->s_lat = perm;	/* size position → latency position */
	perm = NULL;
	err = copy_lost(ix, &b->lost[op], &b->poison[op]);
cleanup:
	free(key);
	free(perm);
	return err;
}

int ops_build__timeline(struct mem_timeline *t, struct vec *v, uint64_t min_ts)
{
	const struct mem_tuple *x = v->p;
	uint64_t n = v->n, *key = NULL, maxk = 0;
	uint32_t *perm = NULL;
	int err = -ENOMEM;

	t->n = n;
	if (!ALLOC(key, n) || !ALLOC(perm, n) || !ALLOC(t->start, n) || !ALLOC(t->end, n) ||
	    !ALLOC(t->delta, n) || !ALLOC(t->pid, n) || !ALLOC(t->rn, n) || !ALLOC(t->op, n))
		goto cleanup;
	/* Pushed in row order, then sorted stably by time: (end, rn). */
	for (uint64_t i = 0; i < n; i++) {
		key[i] = x[i].end - min_ts;
		maxk = key[i] > maxk ? key[i] : maxk;
		perm[i] = (uint32_t)i;
	}
	if (sort__radix_perm(key, perm, n, sort__bits(maxk)))
		goto cleanup;
	for (uint64_t i = 0; i < n; i++) {
		const struct mem_tuple *y = &x[perm[i]];

		t->start[i] = y->start;
		t->end[i] = y->end;
		t->delta[i] = y->delta;
		t->pid[i] = y->pid;
		t->rn[i] = y->rn;
		t->op[i] = y->op;
	}
	err = 0;
cleanup:
	free(key);
	free(perm);
	return err;
}

int ops_build__enters(struct enter_rows *e, struct vec *v)
{
	const struct enter_tuple *x = v->p;

	e->n = v->n;
	if (!ALLOC(e->ts, v->n) || !ALLOC(e->count, v->n) || !ALLOC(e->pid, v->n) ||
	    !ALLOC(e->rn, v->n) || !ALLOC(e->has_count, v->n))
		return -ENOMEM;
	for (uint64_t i = 0; i < v->n; i++) {
		e->ts[i] = x[i].ts;
		e->count[i] = x[i].count;
		e->pid[i] = x[i].pid;
		e->rn[i] = x[i].rn;
		e->has_count[i] = x[i].has;
	}
	return 0;
}
