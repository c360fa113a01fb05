/* The process tree: each process (tgid) under the process that forked it, with its
 * start, lifetime, exit code and thread count.  Times are from the trace's first row. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "report/report.h"
#include "trace/schema.h"

#define MAX_DEPTH 24

struct proc {
	int64_t tgid, parent, start, end, code, sig, threads, cpu;
	bool has_end, has_code, has_sig;
	char *name, *argv, *command;	/* argv: JSON text */
	size_t first_child, next_sibling;	/* index + 1; 0 none */
};

static const struct rcol cols[] = {
	{ "pid", RC_INT, NULL }, { "ppid", RC_INT, NULL }, { "process", RC_TEXT, NULL }, { "start", RC_NS, "start_ns" },
	{ "lifetime", RC_NS, "lifetime_ns" }, { "cpu", RC_NS, "cpu_ns" }, { "exit", RC_INT, "exit_code" },
	{ "signal", RC_INT, NULL }, { "threads", RC_INT, NULL }, { "command", RC_TEXT, NULL },
	{ NULL, RC_JSON, "argv" },
};

/* Per process: CPU samples (× stack_weight) and its last command line: its exec's, else
 * what /proc said when probex attached (probex.cmdlines). */
static const char *const extra_sql =
	"WITH c AS (SELECT tgid, sum(coalesce(stack_weight, 1)) AS w FROM events "
	"WHERE event_type = 'cpu_sample' GROUP BY 1), "
	"x AS (SELECT tgid, arg_max(argv, ts_ns) AS a FROM events WHERE event_type = 'process_exec' "
	"AND argv IS NOT NULL GROUP BY 1), "
	"m AS (SELECT decode(value)::JSON AS j FROM parquet_kv_metadata(%s) WHERE decode(key) = '"
	META_CMDLINES "'), "
	"k AS (SELECT k::BIGINT AS tgid, json_extract(j, '$.\"' || k || '\"')::VARCHAR[] AS a "
	"FROM m, unnest(json_keys(j)) AS t(k)), "
	"a AS (SELECT coalesce(x.tgid, k.tgid) AS tgid, coalesce(x.a, k.a) AS a FROM x FULL JOIN k "
	"ON x.tgid = k.tgid) "
	"SELECT coalesce(c.tgid, a.tgid)::BIGINT, coalesce(c.w, 0)::BIGINT, to_json(a.a)::VARCHAR, "
	"array_to_string(a.a, ' ') FROM c FULL JOIN a ON c.tgid = a.tgid";

static void load_extra(struct report *r, struct proc *p, size_t n)
{
	uint64_t period = r->sample_freq_hz ? 1000000000ull / r->sample_freq_hz : 0;
	duckdb_result res;
	char *sql;

	if (asprintf(&sql, extra_sql, r->tf->literal) < 0)
		return;
	if (duckdb_query(r->con, sql, &res) == DuckDBError) {
		log__warn("processes: no CPU times or command lines: %s", duckdb_result_error(&res));
		free(sql);
		duckdb_destroy_result(&res);
		return;		/* the table goes out without them */
	}
	free(sql);
	for (idx_t i = 0; i < duckdb_row_count(&res); i++) {
		int64_t tgid = duckdb_value_int64(&res, 0, i);

		for (size_t k = 0; k < n; k++) {
			if (p[k].tgid != tgid)
				continue;
			p[k].cpu = duckdb_value_int64(&res, 1, i) * (int64_t)period;
			if (!duckdb_value_is_null(&res, 2, i)) {
				p[k].argv = duckdb_value_varchar(&res, 2, i);
				p[k].command = duckdb_value_varchar(&res, 3, i);
			}
			break;
		}
	}
	duckdb_destroy_result(&res);
}

const char *const report_procs_sql =
	/* Per thread and name first: arg_max over every row's name is 2x slower. */
	"WITH g AS (SELECT tgid, pid, process_name, min(ts_ns) AS t0, max(ts_ns) AS t1 FROM events GROUP BY ALL), "
	"p AS (SELECT tgid, arg_max(process_name, t1) AS name, min(t0) AS t0, max(t1) AS t1, "
	"count(DISTINCT pid) AS threads FROM g GROUP BY tgid), "
	"f AS (SELECT coalesce(child_tgid, child_pid) AS c, arg_min(tgid, ts_ns) AS parent, min(ts_ns) AS ft FROM events "
	"WHERE event_type = 'process_fork' AND coalesce(child_tgid, child_pid) = child_pid GROUP BY 1), "
	"e AS (SELECT tgid, arg_max(exit_code, ts_ns) AS code, arg_max(exit_signal, ts_ns) AS sig, "
	"max(ts_ns) AS et FROM events WHERE event_type = 'process_exit' AND pid = tgid GROUP BY 1) "
	"SELECT p.tgid::BIGINT, f.parent::BIGINT, p.name, (coalesce(f.ft, p.t0) - %llu)::BIGINT, "
	"(e.et - coalesce(f.ft, p.t0))::BIGINT, e.code::BIGINT, e.sig::BIGINT, p.threads::BIGINT "
	"FROM p LEFT JOIN f ON f.c = p.tgid LEFT JOIN e ON e.tgid = p.tgid ORDER BY 4, 1";

static int load(struct report *r, struct proc **out, size_t *n)
{
	duckdb_result res;
	struct proc *p;
	char sql[2048];
	int err;

	snprintf(sql, sizeof(sql), report_procs_sql, (unsigned long long)r->t0);
	if ((err = report__query(r, "processes", sql, &res)))
		return err;
	*n = duckdb_row_count(&res);
	p = calloc(*n + 1, sizeof(*p));
	for (idx_t i = 0; p && i < *n; i++) {
		char *name = duckdb_value_varchar(&res, 2, i);

		p[i] = (struct proc){
			.tgid = duckdb_value_int64(&res, 0, i),
			.parent = duckdb_value_is_null(&res, 1, i) ? -1 : duckdb_value_int64(&res, 1, i),
			.name = strdup(name ? name : "?"),
			.start = duckdb_value_int64(&res, 3, i),
			.has_end = !duckdb_value_is_null(&res, 4, i),
			.end = duckdb_value_int64(&res, 4, i),
			.has_code = !duckdb_value_is_null(&res, 5, i),
			.code = duckdb_value_int64(&res, 5, i),
			.has_sig = !duckdb_value_is_null(&res, 6, i) && duckdb_value_int64(&res, 6, i) > 0,
			.sig = duckdb_value_int64(&res, 6, i),
			.threads = duckdb_value_int64(&res, 7, i),
		};
		duckdb_free(name);
	}
	duckdb_destroy_result(&res);
	*out = p;
	return p ? 0 : -ENOMEM;
}

/* Link children (in start order) under their parent when the parent is in the table. */
static void link(struct proc *p, size_t n)
{
	size_t *last = calloc(n + 1, sizeof(*last));

	for (size_t i = 0; last && i < n; i++) {
		for (size_t k = 0; k < n; k++) {
			if (p[k].tgid != p[i].parent || k == i)
				continue;
			if (last[k])
				p[last[k] - 1].next_sibling = i + 1;
			else
				p[k].first_child = i + 1;
			last[k] = i + 1;
			break;
		}
	}
	free(last);
}

static bool has_parent(const struct proc *p, size_t n, size_t i)
{
	for (size_t k = 0; k < n; k++)
		if (k != i && p[k].tgid == p[i].parent)
			return true;
	return false;
}

static void add(struct report *r, struct rtable *t, const struct proc *p, size_t i, int depth,
		unsigned int *shown)
{
	char name[256];

	for (; i; i = p[i - 1].next_sibling) {
		const struct proc *q = &p[i - 1];

		if (*shown >= r->o->top * 4) {
			t->left_out++;
		} else {
			int ind = depth < MAX_DEPTH ? depth : MAX_DEPTH;

			(*shown)++;
			snprintf(name, sizeof(name), "%*s%s", r->j ? 0 : 2 * ind, "", q->name);
			rtable__row(t);
			rtable__int(t, q->tgid);
			q->parent >= 0 ? rtable__int(t, q->parent) : rtable__null(t);
			rtable__str(t, name);
			rtable__int(t, q->start);
			q->has_end ? rtable__int(t, q->end) : rtable__null(t);
			r->sample_freq_hz ? rtable__int(t, q->cpu) : rtable__null(t);
			q->has_code ? rtable__int(t, q->code) : rtable__null(t);
			q->has_sig ? rtable__int(t, q->sig) : rtable__null(t);
			rtable__int(t, q->threads);
			q->command ? rtable__str(t, q->command) : rtable__null(t);
			q->argv ? rtable__str(t, q->argv) : rtable__null(t);
		}
		add(r, t, p, q->first_child, depth + 1, shown);
	}
}

int report__processes(struct report *r)
{
	unsigned int shown = 0;
	struct rtable t;
	struct proc *p;
	size_t n;
	int err;

	if ((err = load(r, &p, &n)))
		return err;
	load_extra(r, p, n);
	link(p, n);
	rtable__init(&t, "processes", "Processes (children indented under their parent; '-': no exit seen)",
		     cols, sizeof(cols) / sizeof(cols[0]));
	for (size_t i = 0; i < n; i++) {
		if (has_parent(p, n, i))
			continue;
		/* A root: walk it alone (its siblings are other roots, found by this loop). */
		size_t sib = p[i].next_sibling;

		p[i].next_sibling = 0;
		add(r, &t, p, i + 1, 0, &shown);
		p[i].next_sibling = sib;
	}
	report__emit(r, &t);
	for (size_t i = 0; i < n; i++) {
		free(p[i].name);
		duckdb_free(p[i].argv);
		duckdb_free(p[i].command);
	}
	free(p);
	return 0;
}
