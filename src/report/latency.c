/* The strace -c style tables (syscalls, io_uring opcodes): per name the calls, errors,
 * total/avg/p50/p95/p99/max latency and bytes, ordered by total time.  Percentiles use
 * pct__index, the viewer's rule. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/intern.h"
#include "common/pct.h"
#include "common/sort.h"
#include "report/latency.h"
#include "trace/tracefile.h"

/* Rows come in any order: each name's latencies gather in an array of their own, sorted
 * once at the end (sorting 6M rows by name in SQL took most of a 20M-event report). */
struct lats {
	uint64_t *v;
	size_t n, cap;
};

struct acc {
	struct intern names;	/* name -> index of g and l */
	struct latency_group *g;
	struct lats *l;
	size_t n, cap;
};

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Sort l's latencies: by radix (3x qsort's speed on millions), qsort without memory. */
static void sort_lats(struct lats *l)
{
	uint32_t *perm = l->n > 4096 && l->n < UINT32_MAX ? malloc(l->n * sizeof(*perm)) : NULL;
	uint64_t *out = perm ? malloc(l->n * sizeof(*out)) : NULL, max = 0;

	for (size_t i = 0; out && i < l->n; i++) {
		perm[i] = (uint32_t)i;
		max = l->v[i] > max ? l->v[i] : max;
	}
	if (!out || sort__radix_perm(l->v, perm, l->n, sort__bits(max))) {
		qsort(l->v, l->n, sizeof(*l->v), cmp_u64);
		free(out);
		free(perm);
		return;
	}
	for (size_t i = 0; i < l->n; i++)
		out[i] = l->v[perm[i]];
	free(l->v);
	free(perm);
	l->v = out;
}

static void close_group(struct latency_group *g, struct lats *l)
{
	sort_lats(l);
	g->n = g->rows = l->n;
	g->p[0] = l->v[pct__index(g->n, 50)];
	g->p[1] = l->v[pct__index(g->n, 95)];
	g->p[2] = l->v[pct__index(g->n, 99)];
	g->p[3] = l->v[g->n - 1];
	free(l->v);
	l->v = NULL;
}

/* The index of name's group, opened when new; negative errno. */
static int64_t group(struct acc *a, const char *name, uint32_t len)
{
	int64_t id = intern__add(&a->names, name, len);

	if (id < 0 || (size_t)id < a->n)
		return id;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		struct latency_group *g = realloc(a->g, cap * sizeof(*g));
		struct lats *l = g ? realloc(a->l, cap * sizeof(*l)) : NULL;

		if (g)
			a->g = g;
		if (!l)
			return -ENOMEM;
		a->l = l;
		a->cap = cap;
	}
	memset(&a->g[a->n], 0, sizeof(a->g[0]));
	memset(&a->l[a->n], 0, sizeof(a->l[0]));
	if (!(a->g[a->n].name = strndup(name, len)))
		return -ENOMEM;
	return (int64_t)a->n++;
}

static int add_lat(struct lats *l, uint64_t v)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		uint64_t *nv = realloc(l->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n++] = v;
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
		int64_t id = group(a, name, len);
		struct latency_group *g;

		if (id < 0 || add_lat(&a->l[id], lat[i]))
			return -ENOMEM;
		g = &a->g[id];
		g->sum += lat[i];
		g->errors += err[i];
		if (!bvalid || duckdb_validity_row_is_valid(bvalid, i)) {
			g->bytes += bytes[i];
			g->has_bytes = true;
		}
	}
	return 0;
}

/* The group named name, added (with no rows) when absent and add; NULL when out of memory
 * or absent. */
static struct latency_group *find_group(struct latency_group **gs, size_t *n, const char *name,
					bool add)
{
	struct latency_group *g;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*gs)[i].name, name))
			return &(*gs)[i];
	if (!add || !(g = realloc(*gs, (*n + 1) * sizeof(*g))))
		return NULL;
	*gs = g;
	g = &g[*n];
	memset(g, 0, sizeof(*g));
	if (!(g->name = strdup(name)))
		return NULL;
	(*n)++;
	return g;
}

/* The exact counts where they count more than the rows: calls, errors and total time
 * from them; percentiles, max and bytes stay the rows' (marked). */
int latency__merge_exact(struct report *r, struct latency_group **gs, size_t *n, const char *sql)
{
	duckdb_result res;
	int err = report__query(r, "the exact counts", sql, &res);

	for (idx_t i = 0; !err && i < duckdb_row_count(&res); i++) {
		char *name = duckdb_value_varchar(&res, 0, i);
		uint64_t calls = duckdb_value_uint64(&res, 1, i);
		struct latency_group *g = name ? find_group(gs, n, name, calls > 0) : NULL;

		if (name && calls && !g)
			err = -ENOMEM;
		duckdb_free(name);
		if (!g || calls <= g->rows)
			continue;
		g->n = calls;
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
	const struct latency_group *a = x, *b = y;

	if (a->sum != b->sum)
		return a->sum > b->sum ? -1 : 1;
	return strcmp(a->name, b->name);
}

static const struct rcol cols[] = {
	/* errors: the count in JSON; in text, by errno name where known ("ENOENT 3"). */
	{ "name", RC_TEXT, NULL }, { "calls", RC_INT, NULL }, { NULL, RC_INT, "errors" },
	{ "errors", RC_TEXT, "" }, { NULL, RC_TEXT, "errnos" },
	{ "total", RC_NS, "total_ns" },
	{ "avg", RC_NS, "avg_ns" }, { "p50", RC_NS, "p50_ns" }, { "p95", RC_NS, "p95_ns" },
	{ "p99", RC_NS, "p99_ns" }, { "max", RC_NS, "max_ns" }, { "bytes", RC_BYTES, NULL },
	{ "time%", RC_PCT, "time_fraction" },
};

static void fill(struct rtable *t, const struct latency_group *gs, size_t n)
{
	uint64_t all = 0;

	for (size_t i = 0; i < n; i++)
		all += gs[i].sum;
	for (size_t i = 0; i < n; i++) {
		const struct latency_group *g = &gs[i];

		rtable__row(t);
		rtable__str(t, g->name);
		rtable__int(t, (int64_t)g->n);
		rtable__int(t, (int64_t)g->errors);
		if (g->errnos) {
			rtable__str(t, g->errnos);
		} else if (g->errors) {
			char buf[32];

			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)g->errors);
			rtable__str(t, buf);
		} else {
			rtable__null(t);
		}
		g->errnos ? rtable__str(t, g->errnos) : rtable__null(t);
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

int latency__collect(struct report *r, const char *what, const char *sql,
		     struct latency_group **out, size_t *n)
{
	struct acc a = { 0 };
	duckdb_data_chunk chunk;
	duckdb_result res;
	int err;

	if ((err = report__query(r, what, sql, &res)))
		return err;
	while (!err && (chunk = duckdb_fetch_chunk(res))) {
		err = add_chunk(&a, chunk);
		progress__rows(r->o->progress, duckdb_data_chunk_get_size(chunk));
		duckdb_destroy_data_chunk(&chunk);
	}
	duckdb_destroy_result(&res);
	for (size_t i = 0; i < a.n; i++) {
		if (!err)
			close_group(&a.g[i], &a.l[i]);
		free(a.l[i].v);
	}
	free(a.l);
	intern__free(&a.names);
	if (err) {
		latency__free(a.g, a.n);
		return err;
	}
	if (a.n)	/* a.g is NULL when there is none */
		qsort(a.g, a.n, sizeof(*a.g), cmp_total);
	*out = a.g;
	*n = a.n;
	return 0;
}

void latency__free(struct latency_group *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(g[i].name);
		free(g[i].errnos);
	}
	free(g);
}

/* Failed syscalls by errno name, as strace -c users read them: the two most frequent per
 * syscall, then how many other names. */
static int errno_names(struct report *r, struct latency_group *g, size_t n)
{
	duckdb_result res;
	int err = report__query(r, "errno names",
				"SELECT regexp_extract(event_type, '^syscall_(.*)_exit$', 1) AS name, -ret, "
				"count(*) AS c FROM events WHERE event_type LIKE 'syscall\\_%\\_exit' ESCAPE '\\' "
				"AND ret BETWEEN -4095 AND -1 GROUP BY 1, 2 ORDER BY 1, 3 DESC, 2", &res);

	if (err)
		return err;
	for (idx_t i = 0, shown = 0; i < duckdb_row_count(&res); i++) {
		char *name = duckdb_value_varchar(&res, 0, i), buf[64], *s;
		const char *e = strerrorname_np((int)duckdb_value_int64(&res, 1, i));
		struct latency_group *x = NULL;

		for (size_t k = 0; name && k < n && !x; k++)
			if (!strcmp(g[k].name, name))
				x = &g[k];
		shown = i && x && x->errnos ? shown + 1 : 0;
		duckdb_free(name);
		if (!x || shown > 2)
			continue;
		if (shown == 2)
			snprintf(buf, sizeof(buf), " +more");
		else if (e)
			snprintf(buf, sizeof(buf), "%s%s %llu", shown ? ", " : "", e,
				 (unsigned long long)duckdb_value_uint64(&res, 2, i));
		else
			snprintf(buf, sizeof(buf), "%s%lld %llu", shown ? ", " : "",
				 (long long)duckdb_value_int64(&res, 1, i),
				 (unsigned long long)duckdb_value_uint64(&res, 2, i));
		if (asprintf(&s, "%s%s", x->errnos ? x->errnos : "", buf) < 0)
			break;
		free(x->errnos);
		x->errnos = s;
	}
	duckdb_destroy_result(&res);
	return 0;
}

int latency__table(struct report *r, const char *key, const char *title, const char *what,
		   const char *sql, const char *exact_sql)
{
	struct latency_group *g;
	struct rtable t;
	size_t n;
	int err;

	if ((err = latency__collect(r, what, sql, &g, &n)))
		return err;
	if (exact_sql && (err = latency__merge_exact(r, &g, &n, exact_sql))) {
		latency__free(g, n);
		return err;
	}
	if (n)	/* g is NULL when there is none */
		qsort(g, n, sizeof(*g), cmp_total);
	if (!strcmp(key, "syscalls") && (err = errno_names(r, g, n))) {
		latency__free(g, n);
		return err;
	}
	rtable__init(&t, key, title, cols, sizeof(cols) / sizeof(cols[0]));
	t.note = "from the rows kept, fewer than the calls: calls, errors, total and avg are exact";
	fill(&t, g, n);
	report__emit(r, &t);
	latency__free(g, n);
	return 0;
}
