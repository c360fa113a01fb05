/* Test helpers for the Parquet writer: a table of full-length column arrays, written in
 * row groups of chosen sizes, then read back through DuckDB and compared cell by cell. */
#ifndef PROBEX_TESTS_PARQUET_CHECK_H
#define PROBEX_TESTS_PARQUET_CHECK_H

#include <duckdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/duck.h"
#include "parquet/parquet.h"

#define PQT_UNUSED __attribute__((unused))

/* A scratch directory for the test binary and the one file its tests write there, made
 * and removed by the cmocka group setup and teardown below. */
static PQT_UNUSED char pqt_dir[] = "/tmp/probex-pq.XXXXXX";
static PQT_UNUSED char pqt_path[256];

static PQT_UNUSED int pqt_group_setup(void **state)
{
	if (!mkdtemp(pqt_dir))
		return -1;
	snprintf(pqt_path, sizeof(pqt_path), "%s/t.parquet", pqt_dir);
	return 0;
}

static PQT_UNUSED int pqt_group_teardown(void **state)
{
	unlink(pqt_path);
	return rmdir(pqt_dir);
}

struct tcol {
	struct pq_column_def def;
	const void *values;		/* nrows values */
	const uint8_t *valid;		/* nrows bytes or NULL */
	const struct pq_dict *dict;
	const struct pq_lists *lists;
};

struct ttable {
	int ncols;
	const struct tcol *cols;
	uint32_t nrows;
};

static PQT_UNUSED size_t pqt_elem_size(enum pq_type t)
{
	switch (t) {
	case PQ_U8:
	case PQ_BOOL:
		return 1;
	case PQ_U64:
	case PQ_I64:
		return 8;
	default:
		return 4;
	}
}

/* PQ_KEEP=DIR keeps a copy of every file written, for checking with other readers. */
static PQT_UNUSED void pqt_keep(const char *path)
{
	static int seq;
	char cmd[1024];

	if (!getenv("PQ_KEEP"))
		return;
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/%d-%03d.parquet'", path, getenv("PQ_KEEP"),
		 (int)getpid(), seq++);
	if (system(cmd))
		fail_msg("%s failed", cmd);
}

/* Write t as row groups of rg[0], rg[1], ... (cycled) rows. */
static PQT_UNUSED int pqt_write(const char *path, const struct ttable *t, const uint32_t *rg,
				int nrg, const struct pq_options *o, const struct pq_kv *kv,
				int nkv)
{
	struct pq_column_def defs[64];
	struct pq_column_data d[64];
	struct pq_writer *w;
	int err;

	for (int c = 0; c < t->ncols; c++)
		defs[c] = t->cols[c].def;
	unlink(path);	/* the writer refuses an existing file (O_EXCL) */
	err = pq_writer__open(&w, path, defs, t->ncols, o);
	if (err)
		return err;
	for (uint32_t r = 0, i = 0; r < t->nrows; i++) {
		uint32_t n = rg[i % nrg];

		if (n > t->nrows - r)
			n = t->nrows - r;
		for (int c = 0; c < t->ncols; c++) {
			const struct tcol *tc = &t->cols[c];

			d[c] = (struct pq_column_data){
				.values = (const char *)tc->values + r * pqt_elem_size(tc->def.type),
				.valid = tc->valid ? tc->valid + r : NULL,
				.dict = tc->dict,
				.lists = tc->lists,
			};
		}
		err = pq_writer__write_row_group(w, n, d);
		if (err) {
			pq_writer__abort(w);
			return err;
		}
		r += n;
	}
	err = pq_writer__close(w, kv, nkv);
	pqt_keep(path);
	return err;
}

static PQT_UNUSED void pqt_connect(duckdb_database *db, duckdb_connection *con)
{
	assert_int_equal(duck__open_memory(db, con, 2), 0);
}

static PQT_UNUSED void pqt_disconnect(duckdb_database *db, duckdb_connection *con)
{
	duckdb_disconnect(con);
	duckdb_close(db);
}

/* SQL with every "%P" replaced by the quoted path. */
static PQT_UNUSED void pqt_sql(char *out, size_t size, const char *tmpl, const char *path)
{
	char lit[1024];
	size_t n = 0;

	assert_int_equal(duck__quote(lit, sizeof(lit), path), 0);
	for (const char *p = tmpl; *p && n + strlen(lit) + 1 < size; p++) {
		if (p[0] == '%' && p[1] == 'P') {
			n += (size_t)snprintf(out + n, size - n, "%s", lit);
			p++;
		} else {
			out[n++] = *p;
		}
	}
	out[n] = 0;
}

/* First cell of a query on path as a malloc'd string ("NULL" for NULL). */
static PQT_UNUSED char *pqt_scalar(const char *path, const char *tmpl)
{
	duckdb_database db;
	duckdb_connection con;
	duckdb_result res;
	char sql[4096], *v;

	pqt_sql(sql, sizeof(sql), tmpl, path);
	pqt_connect(&db, &con);
	if (duckdb_query(con, sql, &res) == DuckDBError)
		fail_msg("%s: %s", sql, duckdb_result_error(&res));
	v = duckdb_value_is_null(&res, 0, 0) ? strdup("NULL") : duckdb_value_varchar(&res, 0, 0);
	if (v && !duckdb_value_is_null(&res, 0, 0)) {
		char *copy = strdup(v);

		duckdb_free(v);
		v = copy;
	}
	duckdb_destroy_result(&res);
	pqt_disconnect(&db, &con);
	return v;
}

static PQT_UNUSED void pqt_expect(const char *path, const char *tmpl, const char *want)
{
	char *got = pqt_scalar(path, tmpl);

	if (strcmp(got, want))
		fail_msg("%s\n  got:  %s\n  want: %s", tmpl, got, want);
	free(got);
}

static PQT_UNUSED bool pqt_is_null(const struct tcol *tc, uint32_t row)
{
	if (tc->valid && !tc->valid[row])
		return true;
	return tc->def.type == PQ_STRING_LIST && ((const int32_t *)tc->values)[row] < 0;
}

static PQT_UNUSED void pqt_check_str(const struct pq_dict *d, uint32_t id, duckdb_string_t *s,
				     int col, uint32_t row)
{
	uint32_t len = duckdb_string_t_length(*s);

	if (len != d->lens[id] || memcmp(duckdb_string_t_data(s), d->strs[id], len))
		fail_msg("col %d row %u: string mismatch (len %u, want %u)", col, row, len,
			 d->lens[id]);
}

static PQT_UNUSED void pqt_check_cell(const struct tcol *tc, duckdb_vector vec, void *data,
				      idx_t i, int col, uint32_t row)
{
	long long got = 0, want = 0;

	switch (tc->def.type) {
	case PQ_U8:
		got = ((uint8_t *)data)[i], want = ((const uint8_t *)tc->values)[row];
		break;
	case PQ_U32:
		got = ((uint32_t *)data)[i], want = ((const uint32_t *)tc->values)[row];
		break;
	case PQ_I32:
		got = ((int32_t *)data)[i], want = ((const int32_t *)tc->values)[row];
		break;
	case PQ_U64:
		got = (long long)((uint64_t *)data)[i];
		want = (long long)((const uint64_t *)tc->values)[row];
		break;
	case PQ_I64:
		got = ((int64_t *)data)[i], want = ((const int64_t *)tc->values)[row];
		break;
	case PQ_BOOL:
		got = ((bool *)data)[i], want = ((const bool *)tc->values)[row];
		break;
	case PQ_STRING:
		pqt_check_str(tc->dict, ((const uint32_t *)tc->values)[row],
			      &((duckdb_string_t *)data)[i], col, row);
		return;
	case PQ_STRING_LIST: {
		duckdb_list_entry e = ((duckdb_list_entry *)data)[i];
		duckdb_vector child = duckdb_list_vector_get_child(vec);
		duckdb_string_t *cs = duckdb_vector_get_data(child);
		uint64_t *cv = duckdb_vector_get_validity(child);
		int32_t id = ((const int32_t *)tc->values)[row];
		uint32_t a = tc->lists->offsets[id], b = tc->lists->offsets[id + 1];

		if (e.length != b - a)
			fail_msg("col %d row %u: list length %llu, want %u", col, row,
				 (unsigned long long)e.length, b - a);
		for (uint32_t j = 0; j < b - a; j++) {
			if (cv && !duckdb_validity_row_is_valid(cv, e.offset + j))
				fail_msg("col %d row %u: null list item", col, row);
			pqt_check_str(tc->dict, tc->lists->items[a + j], &cs[e.offset + j], col,
				      row);
		}
		return;
	}
	}
	if (got != want)
		fail_msg("col %d (%s) row %u: got %lld want %lld", col, tc->def.name, row, got,
			 want);
}

/* Read every cell of path back and compare with t.  DuckDB keeps file order for a plain
 * scan (preserve_insertion_order); file_row_number checks that instead of sorting. */
static PQT_UNUSED void pqt_verify(const char *path, const struct ttable *t)
{
	duckdb_database db;
	duckdb_connection con;
	duckdb_result res;
	duckdb_data_chunk ch;
	char sql[2048];
	uint32_t row = 0;

	pqt_sql(sql, sizeof(sql),
		"SELECT * FROM read_parquet(%P, file_row_number = true)",
		path);
	pqt_connect(&db, &con);
	if (duckdb_query(con, sql, &res) == DuckDBError)
		fail_msg("%s: %s", sql, duckdb_result_error(&res));
	assert_int_equal(duckdb_column_count(&res), t->ncols + 1);
	while ((ch = duckdb_fetch_chunk(res))) {
		idx_t n = duckdb_data_chunk_get_size(ch);
		int64_t *rn = duckdb_vector_get_data(duckdb_data_chunk_get_vector(ch, t->ncols));

		for (idx_t i = 0; i < n; i++)
			if (rn[i] != (int64_t)(row + i))
				fail_msg("row %u came back as file row %lld", row + (uint32_t)i,
					 (long long)rn[i]);

		for (int c = 0; c < t->ncols; c++) {
			duckdb_vector vec = duckdb_data_chunk_get_vector(ch, c);
			void *data = duckdb_vector_get_data(vec);
			uint64_t *validity = duckdb_vector_get_validity(vec);
			const struct tcol *tc = &t->cols[c];

			for (idx_t i = 0; i < n; i++) {
				bool null = validity && !duckdb_validity_row_is_valid(validity, i);

				if (null != pqt_is_null(tc, row + (uint32_t)i))
					fail_msg("col %d (%s) row %u: null %d, want %d", c,
						 tc->def.name, row + (uint32_t)i, null, !null);
				if (!null)
					pqt_check_cell(tc, vec, data, i, c, row + (uint32_t)i);
			}
		}
		row += (uint32_t)n;
		duckdb_destroy_data_chunk(&ch);
	}
	assert_int_equal(row, t->nrows);
	duckdb_destroy_result(&res);
	pqt_disconnect(&db, &con);
}

#endif
