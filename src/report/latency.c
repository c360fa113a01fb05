/* The strace -c style tables (syscalls, io_uring opcodes): per name the calls, errors,
 * total/avg/p50/p95/p99/max latency and bytes, ordered by total time.  Percentiles use
 * pct__index, the viewer's rule. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/pct.h"
#include "report/latency.h"
#include "trace/tracefile.h"

struct group {
	char *name;
	uint64_t n, errors, sum, p[4];	/* p50, p95, p99, max */
	uint64_t rows;			/* rows behind p[] and bytes: n unless incomplete */
	int64_t bytes;
	bool has_bytes, incomplete;
};

struct acc {
	struct group *g;
	size_t n, cap;
	uint64_t *lat;		/* the current group's latencies, ascending */
	size_t nlat, latcap;
};

static int close_group(struct acc *a)
{
	struct group *g;

	if (!a->n)
		return 0;
	g = &a->g[a->n - 1];
	g->n = g->rows = a->nlat;
	if (g->n) {
		g->p[0] = a->lat[pct__index(g->n, 50)];
		g->p[1] = a->lat[pct__index(g->n, 95)];
		g->p[2] = a->lat[pct__index(g->n, 99)];
		g->p[3] = a->lat[g->n - 1];
	}
	a->nlat = 0;
	return 0;
}

/* A new group after the last, with no rows yet. */
static int add_group(struct acc *a, const char *name, uint32_t len)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		struct group *g = realloc(a->g, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		a->g = g;
		a->cap = cap;
	}
	memset(&a->g[a->n], 0, sizeof(a->g[0]));
	if (!(a->g[a->n].name = strndup(name, len)))
		return -ENOMEM;
	a->n++;
	return 0;
}

static int open_group(struct acc *a, const char *name, uint32_t len)
{
	if (close_group(a))
		return -ENOMEM;
	return add_group(a, name, len);
}

static int add_lat(struct acc *a, uint64_t v)
{
	if (a->nlat == a->latcap) {
		size_t cap = a->latcap ? a->latcap * 2 : 1024;
		uint64_t *l = realloc(a->lat, cap * sizeof(*l));

		if (!l)
			return -ENOMEM;
		a->lat = l;
		a->latcap = cap;
	}
	a->lat[a->nlat++] = v;
	return 0;
}

/* Columns: name VARCHAR, latency UBIGINT, is_error BOOLEAN, bytes BIGINT (NULL: none). */
static int add_chunk(struct acc *a, duckdb_data_chunk chunk)
{
	idx_t n = duckdb_data_chunk_get_size(chunk);
	void *names = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 0));
	uint64_t *lat = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 1));
	bool *err = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 2));
	duckdb_vector bv = duckdb_data_chunk_get_vector(chunk, 3);
	int64_t *bytes = duckdb_vector_get_data(bv);
	uint64_t *bvalid = duckdb_vector_get_validity(bv);

	for (idx_t i = 0; i < n; i++) {
		uint32_t len;
		const char *name = trace_file__cell(names, i, &len);
		struct group *g = a->n ? &a->g[a->n - 1] : NULL;

		if ((!g || strlen(g->name) != len || memcmp(g->name, name, len)) && open_group(a, name, len))
			return -ENOMEM;
		g = &a->g[a->n - 1];
		if (add_lat(a, lat[i]))
			return -ENOMEM;
		g->sum += lat[i];
		g->errors += err[i];
		if (!bvalid || duckdb_validity_row_is_valid(bvalid, i)) {
			g->bytes += bytes[i];
			g->has_bytes = true;
		}
	}
	return 0;
}

static struct group *find_group(struct acc *a, const char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->g[i].name, name))
			return &a->g[i];
	return NULL;
}

/* The exact counts where they count more than the rows: calls, errors and total time
 * from them; percentiles, max and bytes stay the rows' (marked). */
static int merge_exact(struct report *r, struct acc *a, const char *sql)
{
	duckdb_result res;
	int err = report__query(r, "the exact counts", sql, &res);

	for (idx_t i = 0; !err && i < duckdb_row_count(&res); i++) {
		char *name = duckdb_value_varchar(&res, 0, i);
		uint64_t n = duckdb_value_uint64(&res, 1, i);
		struct group *g = name ? find_group(a, name) : NULL;

		if (name && !g && n) {
			err = add_group(a, name, (uint32_t)strlen(name));
			g = err ? NULL : &a->g[a->n - 1];
		}
		duckdb_free(name);
		if (!g || n <= g->rows)
			continue;
		g->n = n;
		g->errors = duckdb_value_uint64(&res, 2, i);
		g->sum = duckdb_value_uint64(&res, 3, i);
		g->incomplete = true;
	}
	if (!err)
		duckdb_destroy_result(&res);
	return err;
}

static int cmp_total(const void *x, const void *y)
{
	const struct group *a = x, *b = y;

	if (a->sum != b->sum)
		return a->sum > b->sum ? -1 : 1;
	return strcmp(a->name, b->name);
}

static const struct rcol cols[] = {
	{ "name", RC_TEXT, NULL }, { "calls", RC_INT, NULL }, { "errors", RC_INT, NULL }, { "total", RC_NS, "total_ns" },
	{ "avg", RC_NS, "avg_ns" }, { "p50", RC_NS, "p50_ns" }, { "p95", RC_NS, "p95_ns" },
	{ "p99", RC_NS, "p99_ns" }, { "max", RC_NS, "max_ns" }, { "bytes", RC_BYTES, NULL },
	{ "time%", RC_PCT, "time_fraction" },
};

static void fill(struct rtable *t, struct acc *a)
{
	uint64_t all = 0;

	if (a->n)	/* a->g is NULL when there is none */
		qsort(a->g, a->n, sizeof(*a->g), cmp_total);
	for (size_t i = 0; i < a->n; i++)
		all += a->g[i].sum;
	for (size_t i = 0; i < a->n; i++) {
		const struct group *g = &a->g[i];

		rtable__row(t);
		rtable__str(t, g->name);
		rtable__int(t, (int64_t)g->n);
		rtable__int(t, (int64_t)g->errors);
		rtable__int(t, (int64_t)g->sum);
		rtable__int(t, (int64_t)(g->sum / g->n));
		for (int k = 0; k < 4; k++) {
			if (g->rows)
				rtable__int(t, (int64_t)g->p[k]);
			else
				rtable__null(t);
			if (g->incomplete)
				rtable__mark(t);
		}
		if (g->has_bytes)
			rtable__int(t, g->bytes);
		else
			rtable__null(t);
		if (g->incomplete && g->has_bytes)
			rtable__mark(t);
		rtable__pct(t, all ? (double)g->sum / (double)all : 0);
	}
}

int latency__table(struct report *r, const char *key, const char *title, const char *what,
		   const char *sql, const char *exact_sql)
{
	struct acc a = { 0 };
	duckdb_data_chunk chunk;
	duckdb_result res;
	struct rtable t;
	int err;

	if ((err = report__query(r, what, sql, &res)))
		return err;
	while (!err && (chunk = duckdb_fetch_chunk(res))) {
		err = add_chunk(&a, chunk);
		progress__rows(r->o->progress, duckdb_data_chunk_get_size(chunk));
		duckdb_destroy_data_chunk(&chunk);
	}
	duckdb_destroy_result(&res);
	if (!err)
		err = close_group(&a);
	if (!err && exact_sql)
		err = merge_exact(r, &a, exact_sql);
	if (!err) {
		rtable__init(&t, key, title, cols, sizeof(cols) / sizeof(cols[0]));
		t.note = "from the rows kept, fewer than the calls: calls, errors, total and avg are exact";
		fill(&t, &a);
		report__emit(r, &t);
	}
	for (size_t i = 0; i < a.n; i++)
		free(a.g[i].name);
	free(a.g);
	free(a.lat);
	return err;
}
