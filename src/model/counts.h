/* Row counts by event type: per type in a window (binary searches in the per-type,
 * per-pid row index, no scan) and per time bucket (one pass over the sorted rows). */
#ifndef PROBEX_MODEL_COUNTS_H
#define PROBEX_MODEL_COUNTS_H

#include <stdint.h>

#include "model/model.h"

/* counts[code]: rows of each type in w (a pid absent from the trace has none). */
void model__type_counts(const struct model *m, const struct window *w,
			uint64_t counts[TRACE_MAX_TYPES]);

struct histogram {
	uint64_t nb, size;	/* nb buckets of size ns from the window's start */
	unsigned int nt;	/* types per bucket in counts */
	uint64_t *counts;	/* [bucket * nt + code] */
	uint64_t *sums;		/* rows per bucket */
	uint64_t total;		/* rows in the window */
};

/* Rows of [start, end] (all pids) in nb (> 0) buckets.  0 or -ENOMEM; free with
 * histogram__free either way. */
int model__histogram(const struct model *m, uint64_t start, uint64_t end, uint64_t nb,
		     struct histogram *h);
void histogram__free(struct histogram *h);

#endif
