#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/strbuf.h"
#include "trace/duck.h"
#include "trace/rowbuf.h"

struct rowbuf {
	duckdb_appender app;
	duckdb_data_chunk chunk;
	int ncols;
	enum col_type *types;
	duckdb_vector *vecs;
	void **data;
	uint64_t **valid;
	idx_t row, cap;
	uint64_t rows;
	int err;
};

static duckdb_type duck_type(enum col_type t)
{
	switch (t) {
	case COL_U8: return DUCKDB_TYPE_UTINYINT;
	case COL_U32: return DUCKDB_TYPE_UINTEGER;
	case COL_I32: return DUCKDB_TYPE_INTEGER;
	case COL_U64: return DUCKDB_TYPE_UBIGINT;
	case COL_I64: return DUCKDB_TYPE_BIGINT;
	case COL_BOOL: return DUCKDB_TYPE_BOOLEAN;
	case COL_STR: return DUCKDB_TYPE_VARCHAR;
	}
	return DUCKDB_TYPE_INVALID;
}

static const char *sql_type(enum col_type t)
{
	static const char *const n[] = { "UTINYINT", "UINTEGER", "INTEGER", "UBIGINT", "BIGINT",
					 "BOOLEAN", "VARCHAR" };
	return n[t];
}

/* Fresh chunk state: every cell NULL until set. */
static void rowbuf__bind(struct rowbuf *rb)
{
	for (int c = 0; c < rb->ncols; c++) {
		rb->vecs[c] = duckdb_data_chunk_get_vector(rb->chunk, c);
		rb->data[c] = duckdb_vector_get_data(rb->vecs[c]);
		duckdb_vector_ensure_validity_writable(rb->vecs[c]);
		rb->valid[c] = duckdb_vector_get_validity(rb->vecs[c]);
		memset(rb->valid[c], 0, (rb->cap + 63) / 64 * 8);
	}
	rb->row = 0;
}

int rowbuf__open(struct rowbuf **rbp, duckdb_connection con, const char *table,
		 const struct col_def *cols, int ncols)
{
	duckdb_logical_type *lt = NULL;
	struct strbuf sql = { 0 };
	struct rowbuf *rb;
	int err = -ENOMEM;

	rb = calloc(1, sizeof(*rb));
	if (!rb)
		return -ENOMEM;
	rb->ncols = ncols;
	rb->types = calloc(ncols, sizeof(*rb->types));
	rb->vecs = calloc(ncols, sizeof(*rb->vecs));
	rb->data = calloc(ncols, sizeof(*rb->data));
	rb->valid = calloc(ncols, sizeof(*rb->valid));
	lt = calloc(ncols, sizeof(*lt));
	if (!rb->types || !rb->vecs || !rb->data || !rb->valid || !lt)
		goto cleanup;
	strbuf__addf(&sql, "CREATE TABLE %s (", table);
	for (int c = 0; c < ncols; c++) {
		rb->types[c] = cols[c].type;
		lt[c] = duckdb_create_logical_type(duck_type(cols[c].type));
		strbuf__addf(&sql, "%s%s %s", c ? ", " : "", cols[c].name, sql_type(cols[c].type));
	}
	strbuf__add(&sql, ")", 1);
	if (sql.err)
		goto cleanup;
	err = duck__exec(con, sql.s);
	if (err)
		goto cleanup;
	if (duckdb_appender_create(con, NULL, table, &rb->app) == DuckDBError) {
		log__error("cannot append to %s", table);
		err = -EIO;
		goto cleanup;
	}
	rb->chunk = duckdb_create_data_chunk(lt, ncols);
	rb->cap = duckdb_vector_size();
	rowbuf__bind(rb);
	err = 0;
cleanup:
	for (int c = 0; lt && c < ncols; c++)
		if (lt[c])
			duckdb_destroy_logical_type(&lt[c]);
	free(lt);
	strbuf__free(&sql);
	if (err) {
		rb->chunk = NULL;
		rowbuf__close(rb);
	} else {
		*rbp = rb;
	}
	return err;
}

static inline void set_valid(struct rowbuf *rb, int c)
{
	rb->valid[c][rb->row / 64] |= 1ull << (rb->row % 64);
}

void rowbuf__u64(struct rowbuf *rb, int c, uint64_t v)
{
	switch (rb->types[c]) {
	case COL_U8: ((uint8_t *)rb->data[c])[rb->row] = (uint8_t)v; break;
	case COL_U32: ((uint32_t *)rb->data[c])[rb->row] = (uint32_t)v; break;
	default: ((uint64_t *)rb->data[c])[rb->row] = v; break;
	}
	set_valid(rb, c);
}

void rowbuf__i64(struct rowbuf *rb, int c, int64_t v)
{
	if (rb->types[c] == COL_I32)
		((int32_t *)rb->data[c])[rb->row] = (int32_t)v;
	else
		((int64_t *)rb->data[c])[rb->row] = v;
	set_valid(rb, c);
}

void rowbuf__bool(struct rowbuf *rb, int c, bool v)
{
	((bool *)rb->data[c])[rb->row] = v;
	set_valid(rb, c);
}

void rowbuf__str(struct rowbuf *rb, int c, const char *s, uint32_t len)
{
	duckdb_vector_assign_string_element_len(rb->vecs[c], rb->row, s, len);
	set_valid(rb, c);
}

static int rowbuf__flush(struct rowbuf *rb)
{
	if (!rb->row || rb->err)
		return rb->err;
	duckdb_data_chunk_set_size(rb->chunk, rb->row);
	if (duckdb_append_data_chunk(rb->app, rb->chunk) == DuckDBError) {
		duckdb_error_data e = duckdb_appender_error_data(rb->app);

		log__error("appending rows: %s", duckdb_error_data_message(e));
		duckdb_destroy_error_data(&e);
		return rb->err = -EIO;
	}
	duckdb_data_chunk_reset(rb->chunk);
	rowbuf__bind(rb);
	return 0;
}

int rowbuf__next(struct rowbuf *rb)
{
	rb->row++;
	rb->rows++;
	if (rb->row == rb->cap)
		return rowbuf__flush(rb);
	return rb->err;
}

uint64_t rowbuf__rows(const struct rowbuf *rb)
{
	return rb->rows;
}

int rowbuf__close(struct rowbuf *rb)
{
	int err;

	if (!rb)
		return 0;
	err = rb->chunk ? rowbuf__flush(rb) : rb->err;
	if (rb->app) {
		if (duckdb_appender_close(rb->app) == DuckDBError && !err) {
			log__error("closing appender failed");
			err = -EIO;
		}
		duckdb_appender_destroy(&rb->app);
	}
	if (rb->chunk)
		duckdb_destroy_data_chunk(&rb->chunk);
	free(rb->types);
	free(rb->vecs);
	free(rb->data);
	free(rb->valid);
	free(rb);
	return err;
}
