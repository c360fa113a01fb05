/* The strace -c table of both runs side by side: per syscall the calls, errors, total,
 * p50 and p99 latency in each (report's latency groups, its percentile rule) and the
 * change, sorted by the absolute change of total time. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff_int.h"
#include "report/latency.h"

struct sys {
	const struct latency_group *g[2];	/* NULL: none in that run */
	uint32_t key;
};

static int64_t total(const struct sys *s, int side)
{
	return s->g[side] ? (int64_t)s->g[side]->sum : 0;
}

static int cmp_change(const void *x, const void *y)
{
	const struct sys *a = x, *b = y;
	uint64_t da = diff__abs(total(a, NEW), total(a, BASE)), db = diff__abs(total(b, NEW), total(b, BASE));

	if (da != db)
		return da > db ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

static const struct rcol json_cols[] = {
	{ "name", RC_TEXT, NULL },
	{ "base_count", RC_INT, NULL }, { "new_count", RC_INT, NULL },
	{ "base_errors", RC_INT, NULL }, { "new_errors", RC_INT, NULL },
	{ "base_total_ns", RC_NS, NULL }, { "new_total_ns", RC_NS, NULL },
	{ "base_p50_ns", RC_NS, NULL }, { "new_p50_ns", RC_NS, NULL },
	{ "base_p99_ns", RC_NS, NULL }, { "new_p99_ns", RC_NS, NULL },
	{ "base_max_ns", RC_NS, NULL }, { "new_max_ns", RC_NS, NULL },
};

/* Text: a row per run, the change on the second. */
static const struct rcol text_cols[] = {
	{ "syscall", RC_TEXT, NULL }, { "run", RC_TEXT, NULL }, { "calls", RC_INT, NULL },
	{ "errors", RC_INT, NULL }, { "total", RC_NS, NULL }, { "p50", RC_NS, NULL },
	{ "p99", RC_NS, NULL }, { "calls +/-", RC_INT, NULL },
	{ "total +/-", RC_DNS, NULL }, { "ratio", RC_RATIO, NULL },
};

static void json_row(struct rtable *t, const struct sys *s, const char *name)
{
	rtable__row(t);
	rtable__str(t, name);
	for (int k = 0; k < 6; k++)
		for (int i = 0; i < 2; i++) {
			const struct latency_group *g = s->g[i];
			uint64_t v[6] = { g ? g->n : 0, g ? g->errors : 0, g ? g->sum : 0, g ? g->p[0] : 0,
					  g ? g->p[2] : 0, g ? g->p[3] : 0 };

			k >= 3 && !(g && g->rows) ? rtable__null(t) : rtable__int(t, (int64_t)v[k]);
			if (k >= 3 && g && g->incomplete)
				rtable__mark(t);
		}
}

static void text_rows(struct rtable *t, const struct sys *s, const char *name)
{
	for (int i = 0; i < 2; i++) {
		const struct latency_group *g = s->g[i];

		rtable__row(t);
		rtable__str(t, i ? "" : name);
		rtable__str(t, i ? "new" : "base");
		rtable__int(t, g ? (int64_t)g->n : 0);
		rtable__int(t, g ? (int64_t)g->errors : 0);
		rtable__int(t, total(s, i));
		for (int k = 0; k < 3; k += 2) {
			g && g->rows ? rtable__int(t, (int64_t)g->p[k]) : rtable__null(t);
			if (g && g->incomplete)
				rtable__mark(t);
		}
		if (!i) {
			rtable__null(t);
			rtable__null(t);
			rtable__null(t);
			continue;
		}
		rtable__int(t, (int64_t)(s->g[NEW] ? s->g[NEW]->n : 0) - (int64_t)(s->g[BASE] ? s->g[BASE]->n : 0));
		rtable__int(t, total(s, NEW) - total(s, BASE));
		total(s, BASE) ? rtable__ratio(t, (double)total(s, NEW) / (double)total(s, BASE)) : rtable__null(t);
	}
}

static int merge(struct diff *d, struct latency_group *g[2], size_t n[2])
{
	struct intern keys = { 0 };
	struct sys *s = calloc(n[0] + n[1] + 1, sizeof(*s));
	struct rtable t;
	uint32_t m;

	for (int i = 0; s && i < 2; i++)
		for (size_t k = 0; k < n[i]; k++) {
			int64_t id = diff__key(&keys, g[i][k].name, strlen(g[i][k].name));

			if (id < 0) {
				free(s);
				intern__free(&keys);
				return (int)id;
			}
			s[id].g[i] = &g[i][k];
			s[id].key = (uint32_t)id;
		}
	if (!s)
		return -ENOMEM;
	m = keys.n;
	if (m)
		qsort(s, m, sizeof(*s), cmp_change);
	if (d->j)
		rtable__init(&t, "syscalls", "", json_cols, sizeof(json_cols) / sizeof(json_cols[0]));
	else
		rtable__init(&t, "syscalls", "Syscalls (latency from enter to exit; sorted by change of total)",
			     text_cols, sizeof(text_cols) / sizeof(text_cols[0]));
	t.note = "from the rows kept, fewer than the calls: calls, errors and total are exact";
	for (uint32_t i = 0; i < m; i++) {
		const char *name = keys.strs[s[i].key];

		if (i >= d->o->r.top) {
			t.left_out = m - i;
			break;
		}
		d->j ? json_row(&t, &s[i], name) : text_rows(&t, &s[i], name);
	}
	diff__emit(d, &t);
	free(s);
	intern__free(&keys);
	return 0;
}

int diff__syscalls(struct diff *d)
{
	struct latency_group *g[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 };
	struct strbuf sql = { 0 };
	int err;

	report__syscalls_sql(&sql);
	err = sql.err;
	/* Calls, errors and totals from the exact counts where rows were dropped. */
	for (int i = 0; i < 2 && !err; i++)
		if (!(err = latency__collect(&d->s[i].r, "syscalls", sql.s, &g[i], &n[i])))
			err = latency__merge_exact(&d->s[i].r, &g[i], &n[i], REPORT_SYSCALLS_EXACT_SQL);
	if (!err)
		err = merge(d, g, n);
	for (int i = 0; i < 2; i++)
		latency__free(g[i], n[i]);
	strbuf__free(&sql);
	return err;
}
