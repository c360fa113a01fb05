#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bigmem.h"
#include "common/bsearch.h"
#include "common/hmap.h"
#include "common/json.h"
#include "common/log.h"
#include "common/sort.h"
#include "model/columns.h"
#include "model/model.h"

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* Distinct pids, ascending, and each row's rank among them. */
static int rank_pids(struct model *m, const struct trace_rows *r, uint32_t **rank_out)
{
	/* pid -> first-seen index, through a direct-mapped memo: rows come from a few
	 * hundred pids at most, and a hash lookup per row cost a quarter of the build. */
	enum { MEMO = 1024 };
	uint32_t memo_pid[MEMO], memo_idx[MEMO], *rank = NULL, *order = NULL, idx = 0;
	bool memo_used[MEMO] = { false };
	struct hmap map = { 0 };
	uint64_t cap = 0;
	int err = -ENOMEM;

	rank = bigmem__alloc((r->n ? r->n : 1) * sizeof(*rank));
	if (!rank)
		goto cleanup;
	for (uint64_t i = 0; i < r->n; i++) {
		uint32_t pid = r->pid[i], slot = pid & (MEMO - 1);

		if (memo_used[slot] && memo_pid[slot] == pid) {
			rank[i] = memo_idx[slot];
			continue;
		}
		if (!hmap__get(&map, pid, &idx)) {
			if (m->npids == cap) {
				uint32_t *p;

				cap = cap ? cap * 2 : 64;
				p = realloc(m->pids, cap * sizeof(*p));
				if (!p)
					goto cleanup;
				m->pids = p;
			}
			idx = m->npids;
			if (hmap__put(&map, pid, idx))
				goto cleanup;
			m->pids[m->npids++] = pid;
		}
		memo_used[slot] = true;
		memo_pid[slot] = pid;
		memo_idx[slot] = idx;
		rank[i] = idx;
	}
	/* First-seen indexes to ranks in pid order. */
	order = malloc((m->npids ? m->npids : 1) * sizeof(*order));
	if (!order)
		goto cleanup;
	if (m->npids)
		qsort(m->pids, m->npids, sizeof(*m->pids), cmp_u32);
	for (uint32_t i = 0; i < m->npids; i++) {
		hmap__get(&map, m->pids[i], &idx);
		order[idx] = i;
	}
	for (uint64_t i = 0; i < r->n; i++)
		rank[i] = order[rank[i]];
	*rank_out = rank;
	rank = NULL;
	err = 0;
cleanup:
	free(rank);
	free(order);
	hmap__free(&map);
	return err;
}

/* Move src[i] to dst[dest[i]] for every row: a stable counting sort by pid applied to one
 * column.  Reads are sequential and writes go to one stream per pid, far cheaper than
 * gathering through a permutation (a cache miss per row and column). */
#define SCATTER(dst, src, type)                                                        \
	do {                                                                           \
		type *s_ = bigmem__alloc((n ? n : 1) * sizeof(type));                  \
		if (!s_)                                                               \
			goto nomem;                                                    \
		for (uint64_t i_ = 0; i_ < n; i_++)                                    \
			s_[dest[i_]] = (src)[i_];                                      \
		free(src);                                                             \
		(src) = NULL;                                                          \
		(dst) = s_;                                                            \
	} while (0)

/* Reorder base[0..len) by perm through tmp. */
static void permute(void *base, size_t elem, const uint32_t *perm, size_t len, void *tmp)
{
	for (size_t j = 0; j < len; j++)
		memcpy((char *)tmp + j * elem, (char *)base + (size_t)perm[j] * elem, elem);
	memcpy(base, tmp, len * elem);
}

/* Rows of one pid arrive in file order, the order events were reserved in the ring buffer
 * across CPUs: time order but for races between CPUs. A segment that is not already sorted
 * gets a stable sort by time. */
static int sort_segment(struct model *m, uint64_t lo, uint64_t hi, uint64_t *keys, uint32_t *perm,
			void *tmp)
{
	size_t type_size = m->type_narrow ? 1 : 2;
	uint64_t len = hi - lo, min = UINT64_MAX, max = 0;
	bool sorted = true;
	int err;

	for (uint64_t i = lo; i < hi; i++) {
		if (i > lo && m->ts[i] < m->ts[i - 1])
			sorted = false;
		min = m->ts[i] < min ? m->ts[i] : min;
		max = m->ts[i] > max ? m->ts[i] : max;
	}
	if (sorted)
		return 0;
	for (uint64_t j = 0; j < len; j++) {
		keys[j] = m->ts[lo + j] - min;
		perm[j] = (uint32_t)j;
	}
	if ((err = sort__radix_perm(keys, perm, len, sort__bits(max - min))))
		return err;
	permute(m->ts + lo, sizeof(*m->ts), perm, len, tmp);
	permute((char *)m->type + lo * type_size, type_size, perm, len, tmp);
	permute(m->file_row + lo, sizeof(*m->file_row), perm, len, tmp);
	if (m->a32)
		permute(m->a32 + lo, sizeof(*m->a32), perm, len, tmp);
	permute(m->flags + lo, sizeof(*m->flags), perm, len, tmp);
	if (m->lat32)
		permute(m->lat32 + lo, sizeof(*m->lat32), perm, len, tmp);
	if (m->w16)
		permute(m->w16 + lo, sizeof(*m->w16), perm, len, tmp);
	return 0;
}

/* A stable counting sort of row numbers by type: within a type they stay pid-major and in
 * time order, so one pid's rows of one type form a sorted run. */
static int build_type_index(struct model *m)
{
	uint64_t stride = m->npids + 1, *cur;
	unsigned int nt = m->ntypes ? m->ntypes : 1;

	m->by_type = bigmem__alloc((m->n ? m->n : 1) * sizeof(*m->by_type));
	m->type_pid_off = calloc(nt * stride + 1, sizeof(*m->type_pid_off));
	cur = calloc(nt * stride + 1, sizeof(*cur));
	if (!m->by_type || !m->type_pid_off || !cur) {
		free(cur);
		return -ENOMEM;
	}
	for (uint32_t p = 0; p < m->npids; p++)
		for (uint64_t r = m->pid_off[p]; r < m->pid_off[p + 1]; r++)
			m->type_pid_off[model__type(m, r) * stride + p + 1]++;
	/* Prefix sums over (type, pid) in that order; each type's slot npids is its end. */
	for (uint64_t i = 1; i < nt * stride; i++)
		m->type_pid_off[i] += m->type_pid_off[i - 1];
	memcpy(cur, m->type_pid_off, nt * stride * sizeof(*cur));
	for (uint32_t p = 0; p < m->npids; p++)
		for (uint64_t r = m->pid_off[p]; r < m->pid_off[p + 1]; r++)
			m->by_type[cur[model__type(m, r) * stride + p]++] = (uint32_t)r;
	free(cur);
	return 0;
}

/* Event types: the names move from r, codes stay; by_name orders them byte by byte (the
 * 0.1 viewer API's JSON key order). */
static int take_types(struct model *m, struct trace_rows *r)
{
	m->ntypes = r->ntypes;
	m->type_names = calloc(r->ntypes + 1, sizeof(*m->type_names));
	m->type_event = calloc(r->ntypes + 1, sizeof(*m->type_event));
	if (!m->type_names || !m->type_event)
		return -ENOMEM;
	for (int e = 0; e < EV__COUNT; e++)
		m->code_of[e] = -1;
	for (unsigned int c = 0; c < r->ntypes; c++) {
		m->type_names[c] = r->type_names[c];
		r->type_names[c] = NULL;
		m->type_event[c] = r->type_event[c];
		if (m->type_event[c] >= 0)
			m->code_of[m->type_event[c]] = (int)c;
	}
	r->ntypes = 0;
	/* Insertion sort: a few dozen names. */
	for (unsigned int c = 0; c < m->ntypes; c++) {
		unsigned int j = c;

		while (j > 0 && strcmp(m->type_names[m->by_name[j - 1]], m->type_names[c]) > 0) {
			m->by_name[j] = m->by_name[j - 1];
			j--;
		}
		m->by_name[j] = (uint16_t)c;
	}
	return 0;
}

int model__build_summary(struct model *m, const struct trace_file *tf, struct trace_rows *r,
			 uint32_t **rank)
{
	uint64_t n = r->n;
	int err;

	memset(m, 0, sizeof(*m));
	*rank = NULL;
	m->path = tf->path;
	m->sample_freq_hz = tf->sample_freq_hz;
	m->has_latency_ns = tf->has_latency_ns;
	m->has_stack_weight = tf->has_stack_weight;
	m->n = n;
	m->min_ts = n ? UINT64_MAX : 0;
	for (uint64_t i = 0; i < n; i++) {
		if (r->ts[i] < m->min_ts)
			m->min_ts = r->ts[i];
		if (r->ts[i] > m->max_ts)
			m->max_ts = r->ts[i];
	}
	err = rank_pids(m, r, rank);
	if (!err)
		err = take_types(m, r);
	if (err) {
		free(*rank);
		*rank = NULL;
		model__free(m);
	}
	return err;
}

int model__build(struct model *m, const struct trace_file *tf, struct trace_rows *r)
{
	uint32_t *rank;
	int err = model__build_summary(m, tf, r, &rank);

	return err ? err : model__build_rows(m, r, rank);
}

void model__take_names(struct model *m, struct trace_rows *r)
{
	m->nnames = r->nnames;
	m->name_pid = r->name_pid;
	m->name = r->name;
	m->last_name = r->last_name;
	m->name_tgid = r->name_tgid;
	r->nnames = 0;
	r->name_pid = NULL;
	r->name = NULL;
	r->last_name = NULL;
	r->name_tgid = NULL;
}

int model__build_rows(struct model *m, struct trace_rows *r, uint32_t *rank)
{
	uint32_t *dest = NULL, *perm = NULL;
	uint64_t n = r->n, *cursor = NULL, *keys = NULL, biggest = 0;
	void *tmp = NULL;
	int err;

	/* Ranks replace pids; the narrow columns and their side parts move over. */
	free(r->pid);
	r->pid = NULL;
	model__take_columns(m, r);
	m->pid_off = calloc(m->npids + 1, sizeof(*m->pid_off));
	cursor = calloc(m->npids + 1, sizeof(*cursor));
	dest = bigmem__alloc((n ? n : 1) * sizeof(*dest));
	m->file_row = bigmem__alloc((n ? n : 1) * sizeof(*m->file_row));
	if (!m->pid_off || !cursor || !dest || !m->file_row)
		goto nomem;
	for (uint64_t i = 0; i < n; i++)
		m->pid_off[rank[i] + 1]++;
	for (uint32_t p = 0; p < m->npids; p++) {
		m->pid_off[p + 1] += m->pid_off[p];
		cursor[p] = m->pid_off[p];
		if (m->pid_off[p + 1] - m->pid_off[p] > biggest)
			biggest = m->pid_off[p + 1] - m->pid_off[p];
	}
	for (uint64_t i = 0; i < n; i++) {
		dest[i] = (uint32_t)cursor[rank[i]]++;
		m->file_row[dest[i]] = (uint32_t)i;
	}
	free(rank);
	rank = NULL;
	SCATTER(m->ts, r->ts, uint64_t);
	m->type_narrow = r->type_narrow;
	if (m->type_narrow) {
		uint8_t *t8 = r->type;

		SCATTER(m->type, t8, uint8_t);	/* frees t8 */
		r->type = NULL;
	} else {
		uint16_t *t16 = r->type;

		SCATTER(m->type, t16, uint16_t);	/* frees t16 */
		r->type = NULL;
	}
	SCATTER(m->flags, m->flags, uint8_t);
	if (m->a32)
		SCATTER(m->a32, m->a32, int32_t);
	if (m->lat32)
		SCATTER(m->lat32, m->lat32, uint32_t);
	if (m->w16)
		SCATTER(m->w16, m->w16, uint16_t);
	free(dest);
	dest = NULL;

	keys = bigmem__alloc((biggest + 1) * sizeof(*keys));
	perm = bigmem__alloc((biggest + 1) * sizeof(*perm));
	tmp = bigmem__alloc((biggest + 1) * sizeof(uint64_t));
	if (!keys || !perm || !tmp)
		goto nomem;
	for (uint32_t p = 0; p < m->npids; p++)
		if ((err = sort_segment(m, m->pid_off[p], m->pid_off[p + 1], keys, perm, tmp)))
			goto cleanup;
	if ((err = model__remap_sides(m)))
		goto cleanup;
	/* Packed once the 64-bit times are gone (narrow_ts), so the full and the packed
	 * columns never meet them. */
	if ((err = build_type_index(m)) || (err = model__narrow_ts(m)) ||
	    (err = pack32__build(&m->by_type_p, m->by_type, n)) ||
	    (err = pack32__build(&m->file_row_p, m->file_row, n)))
		goto cleanup;
	free(m->by_type);
	free(m->file_row);
	m->by_type = m->file_row = NULL;
	/* latency_ns only where a row has it (exit rows, off-CPU intervals). */
	if (m->lat32 && (err = sparse32__build(&m->lat, m->lat32, m->flags, ROW_LAT, n)))
		goto cleanup;
	free(m->lat32);
	m->lat32 = NULL;
	model__take_names(m, r);
	err = 0;
	goto cleanup;
nomem:
	err = -ENOMEM;
cleanup:
	free(rank);
	free(dest);
	free(cursor);
	free(keys);
	free(perm);
	free(tmp);
	if (err)
		model__free(m);
	return err;
}

/* A stack as the JSON array the API returns (EventDetail.stack_trace). */
static char *render_stack(const struct trace_rows *r, uint32_t id, uint32_t *len)
{
	struct json j;
	size_t l = 0;
	char *s;

	json__init(&j);
	json__arr_begin(&j);
	for (uint32_t k = 0; k < r->stack_count[id]; k++) {
		uint32_t ll;
		const char *label = trace_rows__label(r, r->stack_first[id] + k, &ll);

		json__strn(&j, label, ll);
	}
	json__arr_end(&j);
	s = json__steal(&j, &l);
	*len = (uint32_t)l;
	return s;
}

/* a[i] = a[perm[i]] for every i.  The stack column is the viewer's last big array to
 * arrive, at its peak: when its ids fit in 16 bits the row-order copy is a 2-byte one,
 * widened back into a's own memory, so the step costs 2 B per event, not 4.  (Walking
 * the permutation's cycles in place would cost no memory but a cache miss a step.) */
/* The stack pass's ids (file order, 16 bits with the wide ones aside) in row order: 16
 * bits a row when every id fits, else 32.  Returns the array or NULL. */
static void *stacks_in_row_order(const struct trace_rows *r, const struct model *m, bool *narrow)
{
	uint64_t n = m->n;

	*narrow = r->stack_wide.n == 0;
	if (*narrow) {
		uint16_t *dst = bigmem__alloc((n ? n : 1) * sizeof(*dst));

		for (uint64_t i = 0; dst && i < n; i++)
			dst[i] = r->stack[model__file_row(m, i)];
		return dst;
	}
	uint32_t *dst = bigmem__alloc((n ? n : 1) * sizeof(*dst)), id;

	for (uint64_t i = 0; dst && i < n; i++) {
		uint32_t f = model__file_row(m, i);

		dst[i] = r->stack[f];
		if (dst[i] == STACK_WIDE && hmap__get(&r->stack_wide, f, &id))
			dst[i] = id;
	}
	return dst;
}

int model__attach_stacks(struct model *m, struct trace_rows *r)
{
	bool narrow;
	void *stack;

	m->stack_json = calloc(r->nstacks + 1, sizeof(*m->stack_json));
	m->stack_json_len = calloc(r->nstacks + 1, sizeof(*m->stack_json_len));
	if (!m->stack_json || !m->stack_json_len)
		return -ENOMEM;
	for (uint32_t id = STACK_EMPTY; id < r->nstacks; id++) {
		m->stack_json[id] = render_stack(r, id, &m->stack_json_len[id]);
		if (!m->stack_json[id])
			return -ENOMEM;
	}
	m->nstacks = r->nstacks;
	/* File order to row order. */
	stack = stacks_in_row_order(r, m, &narrow);
	if (!stack)
		return -ENOMEM;
	free(r->stack);
	r->stack = NULL;
	hmap__free(&r->stack_wide);
	/* Keep the label pool for folding flame graphs. */
	m->labels = *r;
	memset(r, 0, sizeof(*r));
	m->stack_narrow = narrow;
	__atomic_store_n(&m->stack, stack, __ATOMIC_RELEASE);
	return 0;
}

void model__free(struct model *m)
{
	free(m->ts);
	free(m->ts32);
	free(m->ts_base);
	free(m->ts_big_rn);
	free(m->ts_big);
	free(m->type);
	free(m->file_row);
	free(m->a32);
	free(m->a_big_rn);
	free(m->a_big);
	free(m->b_rn);
	free(m->b_val);
	free(m->flags);
	free(m->flags_old);
	free(m->lat32);
	sparse32__free(&m->lat);
	free(m->lat_big_rn);
	free(m->lat_big);
	free(m->w16);
	free(m->w_big_rn);
	free(m->w_big);
	free(m->stack);
	free(m->pids);
	free(m->pid_off);
	free(m->by_type);
	pack32__free(&m->by_type_p);
	pack32__free(&m->file_row_p);
	free(m->type_pid_off);
	for (unsigned int c = 0; m->type_names && c < m->ntypes; c++)
		free(m->type_names[c]);
	free(m->type_names);
	free(m->type_event);
	for (uint32_t i = 0; m->name && i < m->nnames; i++) {
		free(m->name[i]);
		free(m->last_name[i]);
	}
	free(m->name_pid);
	free(m->name);
	free(m->last_name);
	free(m->name_tgid);
	for (uint32_t i = 0; m->stack_json && i < m->nstacks; i++)
		free(m->stack_json[i]);
	free(m->stack_json);
	free(m->stack_json_len);
	trace_rows__free(&m->labels);
	memset(m, 0, sizeof(*m));
}

int64_t model__pid_index(const struct model *m, uint32_t pid)
{
	return bsearch__find_u32(m->pids, m->npids, pid);
}

uint64_t model__lower_bound(const struct model *m, uint64_t lo, uint64_t hi, uint64_t t)
{
	return BSEARCH_FIRST(lo, hi, i, model__ts(m, i) < t);
}

void model__pid_window(const struct model *m, uint32_t p, uint64_t start, uint64_t end,
		       uint64_t *lo, uint64_t *hi)
{
	uint64_t a = m->pid_off[p], b = m->pid_off[p + 1];

	*lo = model__lower_bound(m, a, b, start);
	*hi = end == UINT64_MAX ? b : model__lower_bound(m, *lo, b, end + 1);
}

uint32_t model__pid_of(const struct model *m, uint64_t rn)
{
	/* The last pid index whose rows start at or before rn (pid_off[0] is 0). */
	return m->pids[BSEARCH_FIRST(1u, m->npids, i, m->pid_off[i] <= rn) - 1];
}

static int64_t name_index(const struct model *m, uint32_t pid)
{
	return bsearch__find_u32(m->name_pid, m->nnames, pid);
}

const char *model__name(const struct model *m, uint32_t pid)
{
	int64_t i = name_index(m, pid);

	return i >= 0 ? m->name[i] : NULL;
}

bool model__name_info(const struct model *m, uint32_t pid, const char **last, uint32_t *tgid)
{
	int64_t i = name_index(m, pid);

	if (i < 0)
		return false;
	*last = m->last_name[i];
	*tgid = m->name_tgid[i];
	return true;
}

void model__type_window(const struct model *m, unsigned int c, uint32_t p, uint64_t start,
			uint64_t end, uint64_t *lo, uint64_t *hi)
{
	uint64_t a = m->type_pid_off[c * (m->npids + 1) + p], b = m->type_pid_off[c * (m->npids + 1) + p + 1];
	uint64_t l = a, h = b;

	while (l < h) {		/* first row with ts >= start */
		uint64_t mid = l + (h - l) / 2;

		if (model__ts(m, model__by_type(m, mid)) < start)
			l = mid + 1;
		else
			h = mid;
	}
	*lo = l;
	h = b;
	while (l < h) {		/* first row with ts > end */
		uint64_t mid = l + (h - l) / 2;

		if (model__ts(m, model__by_type(m, mid)) <= end)
			l = mid + 1;
		else
			h = mid;
	}
	*hi = l;
}
