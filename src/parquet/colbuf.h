/* One row group of typed columns, filled row by row, handed to the Parquet writer.
 * Cells start NULL; setters fill them. */
#ifndef PROBEX_PARQUET_COLBUF_H
#define PROBEX_PARQUET_COLBUF_H

#include <stdbool.h>
#include <stdint.h>

#include "parquet/parquet.h"

struct colbuf {
	const struct pq_column_def *defs;
	int ncols;
	uint32_t cap, n;
	void **vals;
	uint8_t **valid;
	struct pq_column_data *data;
};

int colbuf__init(struct colbuf *c, const struct pq_column_def *defs, int ncols, uint32_t cap);
void colbuf__free(struct colbuf *c);
/* Dictionary (and lists) a PQ_STRING / PQ_STRING_LIST column's ids refer to. */
void colbuf__set_dict(struct colbuf *c, int col, const struct pq_dict *d, const struct pq_lists *l);

static inline void colbuf__set(struct colbuf *c, int col, uint64_t v)
{
	uint32_t r = c->n;

	switch (c->defs[col].type) {
	case PQ_U8: ((uint8_t *)c->vals[col])[r] = (uint8_t)v; break;
	case PQ_BOOL: ((bool *)c->vals[col])[r] = v != 0; break;
	case PQ_U32:
	case PQ_I32:
	case PQ_STRING:
	case PQ_STRING_LIST: ((uint32_t *)c->vals[col])[r] = (uint32_t)v; break;
	default: ((uint64_t *)c->vals[col])[r] = v; break;
	}
	c->valid[col][r] = 1;
}

/* Finish the current row; returns true when the row group is full. */
static inline bool colbuf__next(struct colbuf *c)
{
	return ++c->n == c->cap;
}

/* Write the rows gathered so far as one row group and start a new one. */
int colbuf__flush(struct colbuf *c, struct pq_writer *w);

#endif
