#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/conn.h"
#include "server/payload.h"

struct hit {
	uint32_t fr;		/* file row */
	uint32_t batch;		/* result holding it */
	uint64_t row;		/* its row there */
};

struct payload {
	duckdb_result *res;
	uint32_t nres;
	struct hit *hits;
	uint32_t nhits;
	/* per column of the results: written as a payload field */
	bool *emit;
	idx_t ncols;
};

/* Columns event_list writes itself (or that only locate the row). */
static bool core_column(const char *name)
{
	static const char *const core[] = { "event_type", "ts_ns", "pid", "latency_ns",
					    "file_row_number" };

	for (size_t i = 0; i < sizeof(core) / sizeof(core[0]); i++)
		if (!strcmp(name, core[i]))
			return true;
	return false;
}

static bool json_type(duckdb_type t)
{
	switch (t) {
	case DUCKDB_TYPE_BOOLEAN:
	case DUCKDB_TYPE_TINYINT: case DUCKDB_TYPE_SMALLINT:
	case DUCKDB_TYPE_INTEGER: case DUCKDB_TYPE_BIGINT:
	case DUCKDB_TYPE_UTINYINT: case DUCKDB_TYPE_USMALLINT:
	case DUCKDB_TYPE_UINTEGER: case DUCKDB_TYPE_UBIGINT:
	case DUCKDB_TYPE_VARCHAR:
		return true;
	default:
		return false;	/* nothing else is in a trace's payload; skip rather than guess */
	}
}

static int hit_cmp(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	return x->fr < y->fr ? -1 : x->fr > y->fr;
}

void payload__free(struct payload *pl)
{
	if (!pl)
		return;
	for (uint32_t i = 0; i < pl->nres; i++)
		duckdb_destroy_result(&pl->res[i]);
	free(pl->res);
	free(pl->hits);
	free(pl->emit);
	free(pl);
}

static int fill_hits(struct payload *pl, duckdb_result *res, uint32_t batch)
{
	idx_t frc = 0, nrows = duckdb_row_count(res), ncols = duckdb_column_count(res);

	for (idx_t c = 0; c < ncols; c++)
		if (!strcmp(duckdb_column_name(res, c), "file_row_number"))
			frc = c + 1;
	if (!frc)
		return -EINVAL;
	if (!pl->emit) {
		pl->ncols = ncols;
		if (!(pl->emit = calloc(ncols, sizeof(*pl->emit))))
			return -ENOMEM;
		for (idx_t c = 0; c < ncols; c++)
			pl->emit[c] = !core_column(duckdb_column_name(res, c)) &&
				      json_type(duckdb_column_type(res, c));
	}
	for (idx_t r = 0; r < nrows; r++) {
		struct hit *h = &pl->hits[pl->nhits++];

		h->fr = (uint32_t)duckdb_value_uint64(res, frc - 1, r);
		h->batch = batch;
		h->row = r;
	}
	return 0;
}

int payload__fetch(struct request *rq, const uint32_t *rows, uint32_t n, struct payload **out)
{
	struct payload *pl = calloc(1, sizeof(*pl));
	bool big = n > PAYLOAD_BATCH;
	uint32_t batch = big ? PAYLOAD_BATCH_BIG : PAYLOAD_BATCH, nb = (n + batch - 1) / batch;
	struct conn_ctx *c;
	int status = 500;

	*out = NULL;
	if (!pl || !(pl->res = calloc(nb ? nb : 1, sizeof(*pl->res))) ||
	    !(pl->hits = calloc(n ? n : 1, sizeof(*pl->hits)))) {
		payload__free(pl);
		return api__fail(rq, 500, "out of memory");
	}
	if (!n) {
		*out = pl;
		return 0;
	}
	if (!(c = api__conn(rq))) {
		snprintf(rq->error, sizeof(rq->error), "no database connection");
		goto fail;
	}
	for (uint32_t b = 0; b < nb; b++) {
		duckdb_prepared_statement s = conn__stmt(c, big ? Q_PAYLOAD_BIG : Q_PAYLOAD, rq->error,
							 sizeof(rq->error));
		uint32_t first = b * batch, cnt = n - first < batch ? n - first : batch;

		if (!s)
			goto fail;
		for (uint32_t i = 0; i < batch; i++)
			duckdb_bind_int64(s, i + 1, rows[first + (i < cnt ? i : cnt - 1)]);
		if (conn__run(s, &pl->res[b], rq->error, sizeof(rq->error)))
			goto fail;
		pl->nres++;
		if (duckdb_row_count(&pl->res[b]) > cnt || fill_hits(pl, &pl->res[b], b)) {
			snprintf(rq->error, sizeof(rq->error), "unexpected rows reading the trace's payload");
			goto fail;
		}
	}
	qsort(pl->hits, pl->nhits, sizeof(*pl->hits), hit_cmp);
	*out = pl;
	return 0;
fail:
	payload__free(pl);
	return status;
}

/* A failed syscall's (or io_uring operation's) error by name, as strace prints it. */
static void errno_field(struct json *j, const char *col, int64_t v)
{
	const char *name;

	if (v >= 0 || v < -4095 || (strcmp(col, "ret") && strcmp(col, "io_uring_res")))
		return;
	name = strerrorname_np((int)-v);
	if (!name)
		return;
	json__key(j, "errno");
	json__str(j, name);
}

void payload__write(struct payload *pl, struct json *j, uint32_t fr)
{
	struct hit key = { .fr = fr }, *h;
	duckdb_result *res;

	if (!pl || !pl->nhits)
		return;
	h = bsearch(&key, pl->hits, pl->nhits, sizeof(*h), hit_cmp);
	if (!h)
		return;
	res = &pl->res[h->batch];
	for (idx_t c = 0; c < pl->ncols; c++) {
		if (!pl->emit[c] || duckdb_value_is_null(res, c, h->row))
			continue;
		json__key(j, duckdb_column_name(res, c));
		switch (duckdb_column_type(res, c)) {
		case DUCKDB_TYPE_BOOLEAN:
			json__bool(j, duckdb_value_boolean(res, c, h->row));
			break;
		case DUCKDB_TYPE_UTINYINT: case DUCKDB_TYPE_USMALLINT:
		case DUCKDB_TYPE_UINTEGER: case DUCKDB_TYPE_UBIGINT:
			json__u64(j, duckdb_value_uint64(res, c, h->row));
			break;
		case DUCKDB_TYPE_VARCHAR: {
			char *s = duckdb_value_varchar(res, c, h->row);

			if (s && !strcmp(duckdb_column_name(res, c), "argv"))
				json__raw(j, s, strlen(s));	/* JSON text (loader.c) */
			else if (s)
				json__str(j, s);
			else
				json__null(j);
			duckdb_free(s);
			break;
		}
		default:
			json__i64(j, duckdb_value_int64(res, c, h->row));
			errno_field(j, duckdb_column_name(res, c), duckdb_value_int64(res, c, h->row));
			break;
		}
	}
}
