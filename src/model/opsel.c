#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bsearch.h"
#include "model/opsel.h"

bool op_sel__is_dirty(const struct op_sel *sel, uint32_t pid)
{
	return bsearch__find_u32(sel->dirty_pids, sel->ndirty_pids, pid) >= 0;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

static int cmp_lat_rn(const void *x, const void *y)
{
	const struct op_rec *a = x, *b = y;

	if (a->lat != b->lat)
		return a->lat < b->lat ? -1 : 1;
	return a->rn < b->rn ? -1 : a->rn > b->rn;
}

static int cmp_size(const void *x, const void *y)
{
	const struct op_rec *a = *(struct op_rec *const *)x, *b = *(struct op_rec *const *)y;

	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? -1 : 1;
	return a->rn < b->rn ? -1 : a->rn > b->rn;
}

static int null_ret(struct op_sel *sel, const struct model *m, uint32_t pid, uint64_t rn)
{
	snprintf(sel->error, sizeof(sel->error),
		 "column 'ret' is NULL on the %s row at ts_ns %llu (pid %u)",
		 m->type_names[model__type(m, rn)], (unsigned long long)model__ts(m, rn), pid);
	return -EINVAL;
}

static int push_dirty(struct op_sel *sel, uint64_t *cap, const struct op_rec *r)
{
	if (sel->ndirty == *cap) {
		uint64_t c = *cap ? *cap * 2 : 64;
		struct op_rec *p = realloc(sel->dirty, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		sel->dirty = p;
		*cap = c;
	}
	sel->dirty[sel->ndirty++] = *r;
	return 0;
}

/* The exact pairing for one pid and op over the window's rows: a FIFO of enters, each
 * exit taking the oldest; brk changes measured against the last break seen in the window. */
static int replay_pid(struct op_sel *sel, const struct model *m, const struct ops *o,
		      const struct window *w, uint32_t pid, unsigned int flags, uint64_t *cap)
{
	int64_t pi = model__pid_index(m, pid);
	uint64_t lo, hi, *queue, head = 0, tail = 0;
	bool have_brk = false;
	int64_t brk = 0;
	int err = 0;

	if (pi < 0)
		return 0;
	model__pid_window(m, (uint32_t)pi, w->start, w->end, &lo, &hi);
	queue = malloc((hi - lo + 1) * sizeof(*queue));
	if (!queue)
		return -ENOMEM;
	for (uint64_t r = lo; !err && r < hi; r++) {
		unsigned int c = model__type(m, r);
		struct op_rec rec;
		uint64_t e, te, tr;
		bool has_ret;
		int64_t ret;

		if (o->code_op[c] != (int8_t)sel->op)
			continue;
		if (o->code_role[c] == ROLE_ENTER) {
			queue[tail++] = r;
			continue;
		}
		if (o->code_role[c] != ROLE_EXIT || head == tail)
			continue;
		e = queue[head++];
		te = model__ts(m, e);
		tr = model__ts(m, r);
		rec = (struct op_rec){ .lat = tr - te, .start = te, .end = tr, .pid = pid,
				       .rn = (uint32_t)r, .srn = (uint32_t)e };
		has_ret = m->flags[r] & ROW_A;
		ret = (int64_t)model__a(m, r, NULL);
		switch (sel->op) {
		case OP_READ:
		case OP_WRITE:
			if (!has_ret && (flags & SEL_RET))
				err = null_ret(sel, m, pid, r);
			rec.bytes = has_ret && ret > 0 ? (uint64_t)ret : 0;
			break;
		case OP_MMAP:
		case OP_MUNMAP:
			if (!has_ret) {
				err = null_ret(sel, m, pid, r);
				continue;
			}
			if (sel->op == OP_MMAP ? ret < 0 : ret != 0)
				continue;
			rec.bytes = (m->flags[e] & ROW_A) ? model__a(m, e, NULL) : 0;
			rec.delta = sel->op == OP_MMAP ? (int64_t)rec.bytes : -(int64_t)rec.bytes;
			break;
		case OP_BRK:
			if (!has_ret) {
				err = null_ret(sel, m, pid, r);
				continue;
			}
			if (ret <= 0)
				continue;
			if (!have_brk || ret == brk) {
				have_brk = true;
				brk = ret;
				continue;
			}
			rec.delta = ret - brk;
			rec.bytes = rec.delta < 0 ? (uint64_t)0 - (uint64_t)rec.delta : (uint64_t)rec.delta;
			brk = ret;
			break;
		default:
			if (sel->op >= OP__COUNT && o->extra_bytes[sel->op])
				rec.bytes = has_ret && ret > 0 ? (uint64_t)ret : 0;
			break;
		}
		if (!err)
			err = push_dirty(sel, cap, &rec);
	}
	free(queue);
	return err;
}

static inline bool keep(const struct op_sel *sel, const struct window *w, uint64_t start,
			uint64_t end, uint32_t pid)
{
	return start >= w->start && end <= w->end && window__takes(sel->m, w, pid) &&
	       (!sel->ndirty_pids || !op_sel__is_dirty(sel, pid));
}

/* Append clean record k (a latency position) after the recomputed ones that sort before. */
static void merge_lat(struct op_sel *sel, uint32_t k, uint64_t *d)
{
	const struct op_index *ix = sel->ix;

	while (*d < sel->ndirty && (sel->dirty[*d].lat < op_index__lat(ix, k) ||
				    (sel->dirty[*d].lat == op_index__lat(ix, k) && sel->dirty[*d].rn < ix->rn[k])))
		sel->lat_order[sel->n++] = (uint32_t)(ix->n + (*d)++);
	sel->lat_order[sel->n++] = k;
}

/* The same in size order (k a size position; ties need no order). */
static void merge_size(struct op_sel *sel, uint32_t k, uint64_t *d, uint64_t *n)
{
	const struct op_index *ix = sel->ix;

	while (*d < sel->ndirty && sel->dirty_by_size[*d]->bytes < op_index__bytes(ix, ix->s_lat[k]))
		sel->size_order[(*n)++] = (uint32_t)(ix->n + (*d)++);
	sel->size_order[(*n)++] = k;
}

/* First position in [lo, hi) of the row order whose end is >= t. */
static uint64_t end_bound(const struct model *m, const struct op_index *ix, uint64_t lo,
			  uint64_t hi, uint64_t t)
{
	return BSEARCH_FIRST(lo, hi, i, op_index__end(m, ix, ix->g_idx[i]) < t);
}

/* The run of pid index p's row order whose records end in the window: [*lo, *hi). */
static void pid_run(const struct model *m, const struct op_index *ix, const struct window *w,
		    uint32_t p, uint64_t *lo, uint64_t *hi)
{
	*lo = end_bound(m, ix, ix->g_off[p], ix->g_off[p + 1], w->start);
	*hi = w->end == UINT64_MAX ? ix->g_off[p + 1] :
	      end_bound(m, ix, *lo, ix->g_off[p + 1], w->end + 1);
}

/* Mark the records in the window by latency position in lat_bits (and by size position
 * in size_bits, unless NULL): one run of the row order per clean pid, each record of
 * which ends in the window; only its start is left to check. */
static void mark(const struct op_sel *sel, const struct model *m, const struct window *w,
		 uint32_t p0, uint32_t p1, uint64_t *lat_bits, uint64_t *size_bits)
{
	const struct op_index *ix = sel->ix;
	uint64_t maxlat = ix->n ? op_index__lat(ix, ix->n - 1) : 0;

	for (uint32_t p = p0; p < p1; p++) {
		uint64_t lo, hi, safe;

		if ((sel->ndirty_pids && op_sel__is_dirty(sel, m->pids[p])) || !window__takes_index(m, w, p))
			continue;
		pid_run(m, ix, w, p, &lo, &hi);
		/* Past end w->start + the longest latency every record starts in the window
		 * (brk's may start far earlier: all checked); before it, the check reads the
		 * latency order at random. */
		safe = hi;
		if (!ix->start && w->start <= UINT64_MAX - maxlat)
			safe = end_bound(m, ix, lo, hi, w->start + maxlat);
		for (uint64_t g = lo; g < hi; g++) {
			uint32_t k = ix->g_idx[g];

			if (g < safe && op_index__start(m, ix, k) < w->start)
				continue;
			lat_bits[k >> 6] |= 1ull << (k & 63);
			if (size_bits)
				size_bits[ix->s_pos[k] >> 6] |= 1ull << (ix->s_pos[k] & 63);
		}
	}
}

/* The clean records of the window, merged with the recomputed ones, in both orders.  The
 * candidates are found in the row order (binary search on end times per pid) and marked
 * in bitmaps; reading the latency bitmap back yields the latency order without sorting.
 * The size order comes from a bitmap of size positions when the window holds few records,
 * else from one pass over the size order that keeps the marked latency positions (a
 * bitmap small enough to stay in cache). */
static int select_window(struct op_sel *sel, const struct model *m, const struct window *w)
{
	const struct op_index *ix = sel->ix;
	uint64_t words = (ix->n + 63) / 64, cand = 0, d, n = 0;
	uint64_t *lat_bits, *size_bits = NULL;
	uint32_t p0, p1;

	window__pids(m, w, &p0, &p1);
	for (uint32_t p = p0; p < p1; p++) {
		uint64_t lo, hi;

		if (!window__takes_index(m, w, p))
			continue;
		pid_run(m, ix, w, p, &lo, &hi);
		cand += hi - lo;
	}
	lat_bits = calloc(words + 1, sizeof(*lat_bits));
	if (sel->size_order && cand * 4 <= ix->n)
		size_bits = calloc(words + 1, sizeof(*size_bits));
	if (!lat_bits || (sel->size_order && cand * 4 <= ix->n && !size_bits)) {
		free(lat_bits);
		free(size_bits);
		return -ENOMEM;
	}
	mark(sel, m, w, p0, p1, lat_bits, size_bits);
	d = 0;
	for (uint64_t i = 0; i < words; i++)
		for (uint64_t bits = lat_bits[i]; bits; bits &= bits - 1)
			merge_lat(sel, (uint32_t)(i * 64 + (uint64_t)__builtin_ctzll(bits)), &d);
	while (d < sel->ndirty)
		sel->lat_order[sel->n++] = (uint32_t)(ix->n + d++);
	if (sel->size_order) {
		d = 0;
		if (size_bits) {
			for (uint64_t i = 0; i < words; i++)
				for (uint64_t bits = size_bits[i]; bits; bits &= bits - 1)
					merge_size(sel, (uint32_t)(i * 64 + (uint64_t)__builtin_ctzll(bits)), &d, &n);
		} else {
			for (uint64_t k = 0; k < ix->n; k++) {
				uint32_t v = ix->s_lat[k];

				if (lat_bits[v >> 6] >> (v & 63) & 1)
					merge_size(sel, (uint32_t)k, &d, &n);
			}
		}
		while (d < sel->ndirty)
			sel->size_order[n++] = (uint32_t)(ix->n + d++);
	}
	free(lat_bits);
	free(size_bits);
	return 0;
}

int op_sel__build(struct op_sel *sel, const struct model *m, const struct ops *o, enum op op,
		  const struct window *w, unsigned int flags)
{
	const struct op_index *ix = &o->op[op];
	uint64_t cap = 0, d;
	int err;

	memset(sel, 0, sizeof(*sel));
	sel->m = m;
	sel->ix = ix;
	sel->op = op;
	sel->name = ops__name(o, op);
	/* Pids whose window holds two enters in a row of this op. */
	for (uint64_t i = 0; i < ix->nlost; i++) {
		if (ix->lost_t1[i] < w->start || ix->lost_t2[i] > w->end ||
		    !window__takes(m, w, ix->lost_pid[i]))
			continue;
		uint32_t *p = realloc(sel->dirty_pids, (sel->ndirty_pids + 1) * sizeof(*p));

		if (!p)
			return -ENOMEM;
		sel->dirty_pids = p;
		sel->dirty_pids[sel->ndirty_pids++] = ix->lost_pid[i];
	}
	if (sel->ndirty_pids) {
		uint32_t u = 0;

		qsort(sel->dirty_pids, sel->ndirty_pids, sizeof(uint32_t), cmp_u32);
		for (uint32_t i = 0; i < sel->ndirty_pids; i++)
			if (!u || sel->dirty_pids[u - 1] != sel->dirty_pids[i])
				sel->dirty_pids[u++] = sel->dirty_pids[i];
		sel->ndirty_pids = u;
	}
	/* NULL rets on precomputed pairs the window counts (recomputed pids check their own). */
	if ((flags & SEL_RET) || op == OP_MMAP || op == OP_MUNMAP || op == OP_BRK) {
		for (uint64_t i = 0; i < ix->npoison; i++)
			if (keep(sel, w, ix->poison_start[i], ix->poison_end[i], ix->poison_pid[i]))
				return null_ret(sel, m, ix->poison_pid[i], ix->poison_rn[i]);
	}
	for (uint32_t i = 0; i < sel->ndirty_pids; i++)
		if ((err = replay_pid(sel, m, o, w, sel->dirty_pids[i], flags, &cap)))
			return err;
	if (sel->ndirty > 1)
		qsort(sel->dirty, sel->ndirty, sizeof(*sel->dirty), cmp_lat_rn);

	/* The common UI case: the whole trace, all pids, nothing to recompute. */
	if (window__all_pids(w) && !sel->ndirty_pids && w->start <= m->min_ts && w->end >= m->max_ts) {
		sel->all = true;
		sel->n = ix->n;
		return 0;
	}
	sel->lat_order = malloc((ix->n + sel->ndirty + 1) * sizeof(uint32_t));
	if (!sel->lat_order)
		return -ENOMEM;
	if (flags & SEL_SIZES) {
		sel->size_order = malloc((ix->n + sel->ndirty + 1) * sizeof(uint32_t));
		sel->dirty_by_size = malloc((sel->ndirty + 1) * sizeof(*sel->dirty_by_size));
		if (!sel->size_order || !sel->dirty_by_size)
			return -ENOMEM;
		for (d = 0; d < sel->ndirty; d++)
			sel->dirty_by_size[d] = &sel->dirty[d];
		if (sel->ndirty > 1)
			qsort(sel->dirty_by_size, sel->ndirty, sizeof(*sel->dirty_by_size), cmp_size);
	}
	return select_window(sel, m, w);
}

void op_sel__get(const struct op_sel *sel, uint64_t k, struct op_rec *out)
{
	const struct op_index *ix = sel->ix;
	uint32_t v = sel->all ? (uint32_t)k : sel->lat_order[k];

	if (v >= ix->n) {
		*out = sel->dirty[v - ix->n];
		return;
	}
	*out = (struct op_rec){ .lat = op_index__lat(ix, v), .bytes = op_index__bytes(ix, v),
				.start = op_index__start(sel->m, ix, v), .end = op_index__end(sel->m, ix, v),
				.delta = ix->delta ? ix->delta[v] : 0, .pid = model__pid_of(sel->m, ix->rn[v]),
				.rn = ix->rn[v], .srn = op_index__srn(ix, v) };
}

void op_sel__free(struct op_sel *sel)
{
	free(sel->lat_order);
	free(sel->size_order);
	free(sel->dirty);
	free(sel->dirty_by_size);
	free(sel->dirty_pids);
	memset(sel, 0, sizeof(*sel));
}
