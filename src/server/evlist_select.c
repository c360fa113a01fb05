#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "server/api.h"
#include "server/evlist_select.h"

struct cand {
	uint64_t lat;	/* latency + 1; 0: none */
	uint64_t rn;
};

static int by_latency(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->lat != y->lat)
		return x->lat > y->lat ? -1 : 1;
	return x->rn < y->rn ? -1 : x->rn > y->rn;
}

static bool ci_has(const char *hay, size_t n, const char *needle, size_t k)
{
	if (!k)
		return true;
	for (size_t i = 0; i + k <= n; i++)
		if (!strncasecmp(hay + i, needle, k))
			return true;
	return false;
}

struct matcher {
	const struct model *m;
	const char *text;
	size_t len;
	const uint32_t *path_rows;
	size_t npath;
	uint32_t pid;		/* whose names name_hit is for */
	bool have_pid, name_hit;
	uint8_t type_hit[TRACE_MAX_TYPES];	/* 0 unknown, 1 no, 2 yes */
	uint8_t *stack_hit;			/* per stack id, the same */
};

/* Whether pid's first or last name holds the text (rows come by thread: one check each). */
static bool name_matches(struct matcher *mt, uint32_t pid)
{
	const char *last = NULL, *first;
	uint32_t tgid;

	if (mt->have_pid && mt->pid == pid)
		return mt->name_hit;
	first = model__name(mt->m, pid);
	model__name_info(mt->m, pid, &last, &tgid);
	mt->pid = pid;
	mt->have_pid = true;
	mt->name_hit = (first && ci_has(first, strlen(first), mt->text, mt->len)) ||
		       (last && ci_has(last, strlen(last), mt->text, mt->len));
	return mt->name_hit;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* One column's matches appended to *rows; a file without the column has none. */
static int path_column(struct request *rq, enum stmt_id id, uint64_t start, uint64_t end,
		       const char *text, uint32_t **rows, size_t *n)
{
	struct conn_ctx *c = api__conn(rq);
	duckdb_prepared_statement s;
	duckdb_result res;
	uint32_t *grown;
	idx_t k;

	if (!c || !(s = conn__stmt(c, id, rq->error, sizeof(rq->error))))
		goto none;
	duckdb_bind_uint64(s, 1, start);
	duckdb_bind_uint64(s, 2, end);
	duckdb_bind_varchar(s, 3, text);
	if (conn__run(s, &res, rq->error, sizeof(rq->error)))
		goto none;
	k = duckdb_row_count(&res);
	if (!(grown = realloc(*rows, (*n + k + 1) * sizeof(**rows)))) {
		duckdb_destroy_result(&res);
		return -ENOMEM;
	}
	*rows = grown;
	for (idx_t i = 0; i < k; i++)
		(*rows)[(*n)++] = (uint32_t)duckdb_value_uint64(&res, 0, i);
	duckdb_destroy_result(&res);
	return 0;
none:
	rq->error[0] = 0;
	return 0;
}

int evlist__path_rows(struct request *rq, uint64_t start, uint64_t end, const char *text,
		      uint32_t **rows, size_t *n)
{
	*rows = NULL;
	*n = 0;
	if (path_column(rq, Q_PATH_FILENAME, start, end, text, rows, n) ||
	    path_column(rq, Q_PATH_FD_PATH, start, end, text, rows, n))
		return -ENOMEM;
	if (*n)
		qsort(*rows, *n, sizeof(**rows), u32_cmp);
	return 0;
}

/* A row matches by its type, its thread's name, a path, or any frame of its stack. */
static bool row_matches(struct matcher *mt, uint64_t rn)
{
	const struct model *m = mt->m;
	unsigned int t = model__type(m, rn);
	uint32_t id;

	if (name_matches(mt, model__pid_of(m, rn)))
		return true;
	if (mt->npath) {
		uint32_t fr = model__file_row(m, rn);

		if (bsearch(&fr, mt->path_rows, mt->npath, sizeof(fr), u32_cmp))
			return true;
	}
	if (!mt->type_hit[t]) {
		const char *s = m->type_names[t];

		mt->type_hit[t] = ci_has(s, strlen(s), mt->text, mt->len) ? 2 : 1;
	}
	if (mt->type_hit[t] == 2)
		return true;
	id = __atomic_load_n(&m->stack, __ATOMIC_ACQUIRE) ? model__stack(m, rn) : STACK_NULL;
	if (id == STACK_NULL || id >= m->nstacks || !mt->stack_hit)
		return false;
	if (!mt->stack_hit[id])
		mt->stack_hit[id] = ci_has(m->stack_json[id], m->stack_json_len[id], mt->text,
					   mt->len) ? 2 : 1;
	return mt->stack_hit[id] == 2;
}

static void matcher__init(struct matcher *mt, const struct model *m, const struct evlist_query *q)
{
	memset(mt, 0, sizeof(*mt));
	mt->m = m;
	mt->text = q->search;
	mt->len = strlen(q->search);
	mt->path_rows = q->path_rows;
	mt->npath = q->npath;
	if (m->nstacks)
		mt->stack_hit = calloc(m->nstacks, 1);
}

int evlist__select(const struct model *m, const uint64_t *rows, uint64_t lo, uint64_t hi,
		   const struct evlist_query *q, uint64_t offset, uint64_t limit, uint64_t *page,
		   uint64_t *shown, uint64_t *total)
{
	struct cand *c = malloc((hi - lo) * sizeof(*c) + 1);
	struct matcher mt;
	uint64_t n = 0;

	*shown = *total = 0;
	if (!c)
		return -ENOMEM;
	if (q->search && *q->search)
		matcher__init(&mt, m, q);
	for (uint64_t i = lo; i < hi; i++) {
		uint64_t r = rows ? rows[i] : i;

		if (q->types && !q->types[model__type(m, r)])
			continue;
		if (q->search && *q->search && !row_matches(&mt, r))
			continue;
		c[n].rn = r;
		c[n].lat = m->has_latency_ns && (m->flags[r] & ROW_LAT) ? model__latency(m, r) + 1 : 0;
		n++;
	}
	if (q->search && *q->search)
		free(mt.stack_hit);
	if (q->by_latency)
		qsort(c, n, sizeof(*c), by_latency);
	*total = n;
	for (uint64_t i = offset; i < n && *shown < limit; i++)
		page[(*shown)++] = c[i].rn;
	free(c);
	return 0;
}
