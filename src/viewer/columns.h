/* The model's wide columns narrowed in file order, before the rows are sorted (so the
 * wide columns and their sorted copies never coexist): each kept in 32 or 16 bits a
 * row, the values that do not fit (and b, which few rows have) as (row, value) pairs on
 * the side; model.h's readers (model__a, model__b, model__latency, model__weight) put
 * them back together. */
#ifndef PROBEX_VIEWER_COLUMNS_H
#define PROBEX_VIEWER_COLUMNS_H

#include "viewer/model.h"

/* Narrow a, b, latency and weight; the full columns are freed.  0 or -ENOMEM. */
int model__compact(struct model *m);
/* The rows were narrowed in file order, then moved: key the side parts by model row
 * (m->file_row gives each model row's file row).  0 or -ENOMEM. */
int model__remap_sides(struct model *m);

/* The side part of a column narrowed to 32 bits, where UINT32_MAX marks the nbig of its
 * n values kept whole: their positions and wide values, in position order.  0 or -ENOMEM
 * (the caller frees what was allocated). */
int model__side_collect(const uint32_t *narrow, const uint64_t *wide, uint64_t n, uint64_t nbig,
			uint32_t **pos, uint64_t **vals);

/* The sorted rows' ts in 32 bits a row (see model__ts); the full column is freed.  0 or
 * -ENOMEM. */
int model__narrow_ts(struct model *m);

#endif
