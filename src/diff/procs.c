/* Processes of both runs matched by command and position in the tree (pids differ between
 * runs): a process's key is its parent's key, its name and its rank among its earlier
 * siblings of that name.  Per process the wall time (fork or first row to exit), CPU time
 * (samples x period) and exit status in each run. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff_int.h"

#define MAX_DEPTH 24

struct proc {
	int64_t tgid, parent, wall, code, sig, samples;
	bool has_wall, has_code, has_sig;
	char *name;
	int depth;
	uint32_t key;
};

struct side_procs {
	struct proc *p;
	size_t n;
};

/* report's process rows with the CPU samples of each. */
#define PROCS_SQL "SELECT x.tgid, x.parent, x.name, x.life, x.code, x.sig, coalesce(c.w, 0)::BIGINT " \
	"FROM (%s) AS x(tgid, parent, name, start, life, code, sig, threads) LEFT JOIN (SELECT tgid, " \
	"sum(coalesce(stack_weight, 1)) AS w FROM events WHERE event_type = 'cpu_sample' GROUP BY 1) " \
	"AS c ON c.tgid = x.tgid ORDER BY x.start, x.tgid"

static int load(struct diff_side *s, struct side_procs *sp)
{
	char inner[2048], *sql;
	duckdb_result res;
	int err;

	snprintf(inner, sizeof(inner), report_procs_sql, (unsigned long long)s->r.t0);
	if (asprintf(&sql, PROCS_SQL, inner) < 0)
		return -ENOMEM;
	err = report__query(&s->r, "processes", sql, &res);
	free(sql);
	if (err)
		return err;
	sp->n = duckdb_row_count(&res);
	sp->p = calloc(sp->n + 1, sizeof(*sp->p));
	for (idx_t i = 0; sp->p && i < sp->n; i++) {
		char *name = duckdb_value_varchar(&res, 2, i);

		sp->p[i] = (struct proc){
			.tgid = duckdb_value_int64(&res, 0, i),
			.parent = duckdb_value_is_null(&res, 1, i) ? -1 : duckdb_value_int64(&res, 1, i),
			.name = strdup(name ? name : "?"),
			.has_wall = !duckdb_value_is_null(&res, 3, i),
			.wall = duckdb_value_int64(&res, 3, i),
			.has_code = !duckdb_value_is_null(&res, 4, i),
			.code = duckdb_value_int64(&res, 4, i),
			.has_sig = !duckdb_value_is_null(&res, 5, i) && duckdb_value_int64(&res, 5, i) > 0,
			.sig = duckdb_value_int64(&res, 5, i),
			.samples = duckdb_value_int64(&res, 6, i),
		};
		duckdb_free(name);
		if (!sp->p[i].name)
			sp->n = i;
	}
	duckdb_destroy_result(&res);
	return sp->p ? 0 : -ENOMEM;
}

/* Keys in start order: "parent key/name#rank"; a parent always starts before its child. */
static int keys(struct intern *k, struct side_procs *sp)
{
	struct strbuf b = { 0 };
	int err = 0;

	for (size_t i = 0; !err && i < sp->n; i++) {
		struct proc *p = &sp->p[i];
		const char *pk = "";
		unsigned int rank = 0;
		int64_t id;

		for (size_t q = 0; q < i; q++)
			if (sp->p[q].tgid == p->parent) {
				pk = k->strs[sp->p[q].key];
				p->depth = sp->p[q].depth + 1;
			}
		for (size_t q = 0; q < i; q++)
			rank += sp->p[q].parent == p->parent && !strcmp(sp->p[q].name, p->name);
		b.len = 0;
		strbuf__addf(&b, "%s/%s#%u", pk, p->name, rank);
		if (b.err || (id = diff__key(k, b.s, b.len)) < 0)
			err = b.err ? b.err : -ENOMEM;
		else
			p->key = (uint32_t)id;
	}
	strbuf__free(&b);
	return err;
}

static const struct rcol text_cols[] = {
	{ "process", RC_TEXT, NULL }, { "run", RC_TEXT, NULL }, { "pid", RC_INT, NULL },
	{ "wall", RC_NS, NULL }, { "cpu", RC_NS, NULL }, { "exit", RC_TEXT, NULL },
	{ "wall +/-", RC_DNS, NULL }, { "cpu +/-", RC_DNS, NULL },
};
static const struct rcol json_cols[] = {
	{ "name", RC_TEXT, NULL }, { "key", RC_TEXT, NULL }, { "depth", RC_INT, NULL },
	{ "base_pid", RC_INT, NULL }, { "new_pid", RC_INT, NULL },
	{ "base_wall_ns", RC_NS, NULL }, { "new_wall_ns", RC_NS, NULL },
	{ "base_cpu_ns", RC_NS, NULL }, { "new_cpu_ns", RC_NS, NULL },
	{ "base_exit_code", RC_INT, NULL }, { "new_exit_code", RC_INT, NULL },
	{ "base_exit_signal", RC_INT, NULL }, { "new_exit_signal", RC_INT, NULL },
};

static int64_t cpu(const struct diff *d, int side, const struct proc *p)
{
	return (int64_t)((double)p->samples * d->s[side].period_ns + 0.5);
}

static void text_rows(struct diff *d, struct rtable *t, const struct proc *m[2])
{
	const struct proc *any = m[NEW] ? m[NEW] : m[BASE];
	int depth = any->depth < MAX_DEPTH ? any->depth : MAX_DEPTH;
	char name[256], exit[32];

	snprintf(name, sizeof(name), "%*s%s", 2 * depth, "", any->name);
	for (int i = 0; i < 2; i++) {
		const struct proc *p = m[i];

		rtable__row(t);
		rtable__str(t, i ? "" : name);
		rtable__str(t, i ? "new" : "base");
		if (!p) {
			for (int k = 0; k < 6; k++)
				rtable__null(t);
			continue;
		}
		snprintf(exit, sizeof(exit), p->has_sig ? "sig %lld" : p->has_code ? "%lld" : "-",
			 (long long)(p->has_sig ? p->sig : p->code));
		rtable__int(t, p->tgid);
		p->has_wall ? rtable__int(t, p->wall) : rtable__null(t);
		rtable__int(t, cpu(d, i, p));
		rtable__str(t, exit);
		if (!i || !m[BASE]) {
			rtable__null(t);
			rtable__null(t);
			continue;
		}
		m[BASE]->has_wall && p->has_wall ? rtable__int(t, p->wall - m[BASE]->wall) : rtable__null(t);
		rtable__int(t, cpu(d, NEW, p) - cpu(d, BASE, m[BASE]));
	}
}

static void json_row(struct diff *d, struct rtable *t, const struct proc *m[2], const char *key)
{
	const struct proc *any = m[NEW] ? m[NEW] : m[BASE];

	rtable__row(t);
	rtable__str(t, any->name);
	rtable__str(t, key);
	rtable__int(t, any->depth);
	for (int i = 0; i < 2; i++)
		m[i] ? rtable__int(t, m[i]->tgid) : rtable__null(t);
	for (int i = 0; i < 2; i++)
		m[i] && m[i]->has_wall ? rtable__int(t, m[i]->wall) : rtable__null(t);
	for (int i = 0; i < 2; i++)
		m[i] ? rtable__int(t, cpu(d, i, m[i])) : rtable__null(t);
	for (int i = 0; i < 2; i++)
		m[i] && m[i]->has_code ? rtable__int(t, m[i]->code) : rtable__null(t);
	for (int i = 0; i < 2; i++)
		m[i] && m[i]->has_sig ? rtable__int(t, m[i]->sig) : rtable__null(t);
}

/* Rows in NEW's tree order, then the processes only BASE had. */
static int emit(struct diff *d, struct intern *k, struct side_procs sp[2])
{
	const struct proc **by[2] = { calloc(k->n + 1, sizeof(void *)), calloc(k->n + 1, sizeof(void *)) };
	unsigned int shown = 0, limit = d->o->r.top;
	struct rtable t;

	if (!by[0] || !by[1]) {
		free(by[0]);
		free(by[1]);
		return -ENOMEM;
	}
	for (int i = 0; i < 2; i++)
		for (size_t q = 0; q < sp[i].n; q++)
			by[i][sp[i].p[q].key] = &sp[i].p[q];
	if (d->j)
		rtable__init(&t, "processes", "", json_cols, sizeof(json_cols) / sizeof(json_cols[0]));
	else
		rtable__init(&t, "processes", "Processes (matched by command and place in the tree; "
			     "CPU: samples x period)", text_cols, sizeof(text_cols) / sizeof(text_cols[0]));
	for (int i = NEW; i >= BASE; i--)
		for (size_t q = 0; q < sp[i].n; q++) {
			uint32_t key = sp[i].p[q].key;
			const struct proc *m[2] = { by[BASE][key], by[NEW][key] };

			if (i == BASE && m[NEW])
				continue;
			if (shown++ >= limit) {
				t.left_out++;
				continue;
			}
			d->j ? json_row(d, &t, m, k->strs[key]) : text_rows(d, &t, m);
		}
	diff__emit(d, &t);
	free(by[0]);
	free(by[1]);
	return 0;
}

int diff__processes(struct diff *d)
{
	struct side_procs sp[2] = { { 0 }, { 0 } };
	struct intern k = { 0 };
	int err = 0;

	for (int i = 0; i < 2 && !err; i++)
		err = load(&d->s[i], &sp[i]);
	for (int i = 0; i < 2 && !err; i++)
		err = keys(&k, &sp[i]);
	if (!err)
		err = emit(d, &k, sp);
	for (int i = 0; i < 2; i++) {
		for (size_t q = 0; q < sp[i].n; q++)
			free(sp[i].p[q].name);
		free(sp[i].p);
	}
	intern__free(&k);
	return err;
}
