/* The model's type-specific columns: read narrow in file order by the scan (model/scan.h),
 * each kept in 32 or 16 bits a row, the values that do not fit (and b, which few rows
 * have) as (row, value) pairs on the side; model.h's readers (model__a, model__b,
 * model__latency, model__weight) put them back together. */
#ifndef PROBEX_MODEL_COLUMNS_H
#define PROBEX_MODEL_COLUMNS_H

#include "model/model.h"

/* Move the scan's narrow columns and side parts into m (keyed by file row until
 * model__remap_sides). */
void model__take_columns(struct model *m, struct trace_rows *r);
/* The rows were read in file order, then moved: key the side parts by model row
 * (m->file_row gives each model row's file row).  0 or -ENOMEM. */
int model__remap_sides(struct model *m);

/* The sorted rows' ts in 32 bits a row (see model__ts); the full column is freed.  0 or
 * -ENOMEM. */
int model__narrow_ts(struct model *m);

#endif
