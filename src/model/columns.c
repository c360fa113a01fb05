#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/bigmem.h"
#include "model/columns.h"

/* The side part of a column narrowed to 32 bits, where UINT32_MAX marks the nbig of its
 * n values kept whole: their positions and wide values, in position order.  0 or -ENOMEM
 * (the caller frees what was allocated). */
static int side_collect(const uint32_t *narrow, const uint64_t *wide, uint64_t n, uint64_t nbig,
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

/* Take a side part: its file rows are remapped to model rows later (model__remap_sides). */
static void take_side(struct trace_side *sd, uint64_t *n, uint32_t **rns, uint64_t **vals)
{
	*n = sd->n;
	*rns = sd->row;
	*vals = sd->val;
	memset(sd, 0, sizeof(*sd));
}

void model__take_columns(struct model *m, struct trace_rows *r)
{
	m->flags = r->flags;
	m->a32 = r->a32;
	m->lat32 = r->lat32;
	m->w16 = r->w16;
	r->flags = NULL;
	r->a32 = NULL;
	r->lat32 = NULL;
	r->w16 = NULL;
	take_side(&r->side[SIDE_A], &m->na_big, &m->a_big_rn, &m->a_big);
	take_side(&r->side[SIDE_B], &m->nb, &m->b_rn, &m->b_val);
	take_side(&r->side[SIDE_LAT], &m->nlat_big, &m->lat_big_rn, &m->lat_big);
	take_side(&r->side[SIDE_WEIGHT], &m->nw_big, &m->w_big_rn, &m->w_big);
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
		REMAP_SIDE(m->nw_big, m->w_big_rn, m->w_big, uint64_t, m->w16[rn] == UINT16_MAX);
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
	if (side_collect(m->ts32, m->ts, m->n, m->nts_big, &m->ts_big_rn, &m->ts_big))
		return -ENOMEM;
	free(m->ts);
	m->ts = NULL;
	return 0;
}
