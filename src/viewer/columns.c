#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/bigmem.h"
#include "viewer/columns.h"

/* The rows with a b value, in row order, and their values; the full column goes. */
static int compact_b(struct model *m)
{
	uint64_t k = 0;

	for (uint64_t i = 0; i < m->n; i++)
		m->nb += (m->flags[i] & ROW_B) != 0;
	m->b_rn = bigmem__alloc((m->nb ? m->nb : 1) * sizeof(*m->b_rn));
	m->b_val = bigmem__alloc((m->nb ? m->nb : 1) * sizeof(*m->b_val));
	if (!m->b_rn || !m->b_val)
		return -ENOMEM;
	for (uint64_t i = 0; i < m->n; i++) {
		if (!(m->flags[i] & ROW_B))
			continue;
		m->b_rn[k] = (uint32_t)i;
		m->b_val[k++] = m->b[i];
	}
	free(m->b);
	m->b = NULL;
	return 0;
}

int model__side_collect(const uint32_t *narrow, const uint64_t *wide, uint64_t n, uint64_t nbig,
			uint32_t **pos, uint64_t **vals)
{
	uint64_t k = 0;

	*pos = malloc((nbig + 1) * sizeof(**pos));
	*vals = malloc((nbig + 1) * sizeof(**vals));
	if (!*pos || !*vals)
		return -ENOMEM;
	for (uint64_t i = 0; i < n && k < nbig; i++) {
		if (narrow[i] != UINT32_MAX)
			continue;
		(*pos)[k] = (uint32_t)i;
		(*vals)[k++] = wide[i];
	}
	return 0;
}

/* latency_ns in 32 bits a row, the values that do not fit on the side; the full column
 * goes. */
static int compact_latency(struct model *m)
{
	if (!m->latency)
		return 0;
	m->lat32 = bigmem__alloc((m->n ? m->n : 1) * sizeof(*m->lat32));
	if (!m->lat32)
		return -ENOMEM;
	for (uint64_t i = 0; i < m->n; i++) {
		bool big = (m->flags[i] & ROW_LAT) && m->latency[i] >= UINT32_MAX;

		/* A NULL latency's slot was never written: 0, never read. */
		m->lat32[i] = big ? UINT32_MAX : (m->flags[i] & ROW_LAT) ? (uint32_t)m->latency[i] : 0;
		m->nlat_big += big;
	}
	if (model__side_collect(m->lat32, m->latency, m->n, m->nlat_big, &m->lat_big_rn, &m->lat_big))
		return -ENOMEM;
	free(m->latency);
	m->latency = NULL;
	return 0;
}

/* a in 32 bits a row, the values that do not fit on the side; the full column goes. */
static int compact_a(struct model *m)
{
	uint64_t k = 0;

	m->a32 = bigmem__alloc((m->n ? m->n : 1) * sizeof(*m->a32));
	if (!m->a32)
		return -ENOMEM;
	for (uint64_t i = 0; i < m->n; i++) {
		int64_t v = (m->flags[i] & ROW_A) ? (int64_t)m->a[i] : 0;
		bool big = v <= A32_BIG || v > INT32_MAX;

		m->a32[i] = big ? A32_BIG : (int32_t)v;
		m->na_big += big;
	}
	m->a_big_rn = bigmem__alloc((m->na_big + 1) * sizeof(*m->a_big_rn));
	m->a_big = bigmem__alloc((m->na_big + 1) * sizeof(*m->a_big));
	if (!m->a_big_rn || !m->a_big)
		return -ENOMEM;
	for (uint64_t i = 0; i < m->n; i++) {
		if (m->a32[i] != A32_BIG)
			continue;
		m->a_big_rn[k] = (uint32_t)i;
		m->a_big[k++] = m->a[i];
	}
	free(m->a);
	m->a = NULL;
	return 0;
}

uint64_t model__a_big(const struct model *m, uint64_t rn, uint64_t *cursor)
{
	uint64_t k;

	if (cursor) {
		while (*cursor < m->na_big && m->a_big_rn[*cursor] < rn)
			(*cursor)++;
		return *cursor < m->na_big && m->a_big_rn[*cursor] == rn ? m->a_big[*cursor] : 0;
	}
	k = model__side_find(m->a_big_rn, m->na_big, rn);
	return k < m->na_big && m->a_big_rn[k] == rn ? m->a_big[k] : 0;
}

/* stack_weight in 16 bits a row, the values that do not fit on the side; the full
 * column goes. */
static int compact_weight(struct model *m)
{
	uint64_t k = 0;

	if (!m->weight)
		return 0;
	m->w16 = bigmem__alloc((m->n ? m->n : 1) * sizeof(*m->w16));
	if (!m->w16)
		return -ENOMEM;
	for (uint64_t i = 0; i < m->n; i++) {
		bool big = m->weight[i] >= UINT16_MAX;

		m->w16[i] = big ? UINT16_MAX : (uint16_t)m->weight[i];
		m->nw_big += big;
	}
	m->w_big_rn = malloc((m->nw_big + 1) * sizeof(*m->w_big_rn));
	m->w_big = malloc((m->nw_big + 1) * sizeof(*m->w_big));
	if (!m->w_big_rn || !m->w_big)
		return -ENOMEM;
	for (uint64_t i = 0; i < m->n; i++) {
		if (m->w16[i] != UINT16_MAX)
			continue;
		m->w_big_rn[k] = (uint32_t)i;
		m->w_big[k++] = m->weight[i];
	}
	free(m->weight);
	m->weight = NULL;
	return 0;
}

uint64_t model__b(const struct model *m, uint64_t rn, uint64_t *cursor)
{
	uint64_t k;

	if (cursor) {
		while (*cursor < m->nb && m->b_rn[*cursor] < rn)
			(*cursor)++;
		return *cursor < m->nb && m->b_rn[*cursor] == rn ? m->b_val[*cursor] : 0;
	}
	k = model__side_find(m->b_rn, m->nb, rn);
	return k < m->nb && m->b_rn[k] == rn ? m->b_val[k] : 0;
}

int model__compact(struct model *m)
{
	int err;

	/* b first (its side part is small), a last: each step holds the wide column it
	 * narrows and the narrow one, so the peak is the first step's. */
	if ((err = compact_b(m)) || (err = compact_latency(m)) || (err = compact_a(m)))
		return err;
	return compact_weight(m);
}

/* One side part from file rows to model rows: rows rn (in model order) that `is_big`
 * are looked up by their file row among the old entries (which hold it). */
#define REMAP_SIDE(cnt, rns, vals, vtype, is_big)                                      	do {                                                                           		uint32_t *nr_ = malloc(((cnt) + 1) * sizeof(uint32_t));                		vtype *nv_ = malloc(((cnt) + 1) * sizeof(vtype));                      		uint64_t k_ = 0;                                                       		if (!nr_ || !nv_) {                                                    			free(nr_);                                                     			free(nv_);                                                     			return -ENOMEM;                                                		}                                                                      		for (uint64_t rn = 0; rn < m->n && k_ < (cnt); rn++) {                 			if (!(is_big))                                                 				continue;                                              			nr_[k_] = (uint32_t)rn;                                        			nv_[k_++] = (vals)[model__side_find((rns), (cnt), m->file_row[rn])];   		}                                                                      		free(rns);                                                             		free(vals);                                                            		(rns) = nr_;                                                           		(vals) = nv_;                                                          	} while (0)

int model__remap_sides(struct model *m)
{
	if (m->na_big)
		REMAP_SIDE(m->na_big, m->a_big_rn, m->a_big, uint64_t, m->a32[rn] == A32_BIG);
	if (m->nb)
		REMAP_SIDE(m->nb, m->b_rn, m->b_val, uint64_t, m->flags[rn] & ROW_B);
	if (m->nlat_big)
		REMAP_SIDE(m->nlat_big, m->lat_big_rn, m->lat_big, uint64_t, m->lat32[rn] == UINT32_MAX);
	if (m->nw_big)
		REMAP_SIDE(m->nw_big, m->w_big_rn, m->w_big, uint32_t, m->w16[rn] == UINT16_MAX);
	return 0;
}

int model__narrow_ts(struct model *m)
{
	uint64_t nblocks = (m->n + TS_BLOCK - 1) / TS_BLOCK;

	m->ts32 = bigmem__alloc((m->n ? m->n : 1) * sizeof(*m->ts32));
	m->ts_base = malloc((nblocks ? nblocks : 1) * sizeof(*m->ts_base));
	if (!m->ts32 || !m->ts_base)
		return -ENOMEM;
	for (uint64_t b = 0; b < nblocks; b++) {
		uint64_t lo = b * TS_BLOCK, hi = lo + TS_BLOCK < m->n ? lo + TS_BLOCK : m->n, min = UINT64_MAX;

		for (uint64_t i = lo; i < hi; i++)
			min = m->ts[i] < min ? m->ts[i] : min;
		m->ts_base[b] = min;
		for (uint64_t i = lo; i < hi; i++) {
			bool big = m->ts[i] - min >= TS32_BIG;

			m->ts32[i] = big ? TS32_BIG : (uint32_t)(m->ts[i] - min);
			m->nts_big += big;
		}
	}
	if (model__side_collect(m->ts32, m->ts, m->n, m->nts_big, &m->ts_big_rn, &m->ts_big))
		return -ENOMEM;
	free(m->ts);
	m->ts = NULL;
	return 0;
}
