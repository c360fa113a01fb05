#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/colbuf.h"

static size_t type_size(enum pq_type t)
{
	switch (t) {
	case PQ_U8:
	case PQ_BOOL: return 1;
	case PQ_U64:
	case PQ_I64: return 8;
	default: return 4;
	}
}

int colbuf__init(struct colbuf *c, const struct pq_column_def *defs, int ncols, uint32_t cap)
{
	memset(c, 0, sizeof(*c));
	c->defs = defs;
	c->ncols = ncols;
	c->cap = cap;
	c->vals = calloc(ncols, sizeof(*c->vals));
	c->valid = calloc(ncols, sizeof(*c->valid));
	c->data = calloc(ncols, sizeof(*c->data));
	if (!c->vals || !c->valid || !c->data)
		goto nomem;
	/* Values are not cleared: only valid ones are ever read, and every row sets its
	 * required columns.  Clearing them cost as much as filling them (a short trace's
	 * row group is mostly nulls, whose pages need never be touched). */
	for (int i = 0; i < ncols; i++) {
		c->vals[i] = malloc((size_t)(cap ? cap : 1) * type_size(defs[i].type));
		c->valid[i] = calloc(cap ? cap : 1, 1);
		if (!c->vals[i] || !c->valid[i])
			goto nomem;
	}
	return 0;
nomem:
	colbuf__free(c);
	return -ENOMEM;
}

void colbuf__free(struct colbuf *c)
{
	for (int i = 0; c->vals && i < c->ncols; i++)
		free(c->vals[i]);
	for (int i = 0; c->valid && i < c->ncols; i++)
		free(c->valid[i]);
	free(c->vals);
	free(c->valid);
	free(c->data);
	memset(c, 0, sizeof(*c));
}

void colbuf__set_dict(struct colbuf *c, int col, const struct pq_dict *d, const struct pq_lists *l)
{
	c->data[col].dict = d;
	c->data[col].lists = l;
}

int colbuf__flush(struct colbuf *c, struct pq_writer *w)
{
	int err;

	if (!c->n)
		return 0;
	for (int i = 0; i < c->ncols; i++) {
		c->data[i].values = c->vals[i];
		c->data[i].valid = c->defs[i].required ? NULL : c->valid[i];
	}
	err = pq_writer__write_row_group(w, c->n, c->data);
	for (int i = 0; i < c->ncols; i++)
		memset(c->valid[i], 0, c->n);
	c->n = 0;
	return err;
}
