/* The report's thread-state section: each thread's time running, runnable, sleeping, in
 * uninterruptible (disk) wait and unknown within the window (model/states.h), with its
 * top blocking syscalls and top wakers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/states.h"
#include "report/report.h"

/* Threads in the window (the filtered `events`), busiest first. */
static int totals_table(struct report *r, const struct sched *s, uint64_t start, uint64_t end)
{
	static const struct rcol cols[] = {
		{ "tid", RC_INT, NULL }, { "pid", RC_INT, NULL }, { "thread", RC_TEXT, "name" },
		{ "running", RC_NS, "running_ns" }, { "runnable", RC_NS, "runnable_ns" },
		{ "sleeping", RC_NS, "sleeping_ns" }, { "disk", RC_NS, "disk_ns" },
		{ "unknown", RC_NS, "unknown_ns" },
	};
	struct tspans sp = { 0 };
	duckdb_result res;
	struct rtable t;
	int err = report__query(r, "threads",
				"WITH l AS (SELECT pid, min(ts_ns) AS a, max(ts_ns) AS b FROM trace GROUP BY pid) "
				"SELECT e.pid::UBIGINT, any_value(tgid)::BIGINT, arg_max(process_name, ts_ns), "
				"any_value(l.a)::UBIGINT, any_value(l.b)::UBIGINT FROM events e JOIN l USING (pid) "
				"GROUP BY e.pid ORDER BY count(*) DESC, e.pid", &res);

	if (err)
		return err;
	rtable__init(&t, "thread_states", "Thread states (time in the window)", cols, 8);
	for (idx_t i = 0; !err && i < duckdb_row_count(&res); i++) {
		uint32_t tid = (uint32_t)duckdb_value_uint64(&res, 0, i);
		uint64_t ns[TS__COUNT] = { 0 }, l0, l1;
		uint64_t r0 = duckdb_value_uint64(&res, 3, i), r1 = duckdb_value_uint64(&res, 4, i);
		char *name = duckdb_value_varchar(&res, 2, i);

		/* Its life: its own rows and its switches. */
		if (!states__life(NULL, s, tid, &l0, &l1))
			l0 = r0, l1 = r1;
		l0 = r0 < l0 ? r0 : l0;
		l1 = r1 > l1 ? r1 : l1;
		sp.n = 0;
		if (!(err = states__spans_life(s, tid, l0, l1, start, end, &sp, NULL)) && sp.n) {
			for (size_t k = 0; k < sp.n; k++)
				ns[sp.v[k].state] += sp.v[k].end - sp.v[k].start;
			rtable__row(&t);
			rtable__int(&t, tid);
			rtable__int(&t, duckdb_value_int64(&res, 1, i));
			rtable__str(&t, name ? name : "");
			for (int k = 0; k < TS__COUNT; k++)
				rtable__int(&t, (int64_t)ns[k]);
		}
		duckdb_free(name);
	}
	duckdb_destroy_result(&res);
	tspans__free(&sp);
	if (!err)
		report__emit(r, &t);
	else
		rtable__free(&t);
	return err;
}

/* The syscall each off-CPU interval blocked in: the thread's last syscall row at or
 * before the block, if it is an enter. */
#define BLOCKING_SQL \
	"WITH o AS (SELECT pid, ts_ns, latency_ns FROM events WHERE event_type = 'off_cpu'), " \
	"s AS (SELECT pid, ts_ns, event_type FROM trace WHERE event_type LIKE 'syscall\\_%%' ESCAPE '\\'), " \
	"b AS (SELECT o.pid, coalesce(regexp_extract(s.event_type, '^syscall_(.*)_enter$', 1), '') AS sc, " \
	"o.latency_ns FROM o ASOF LEFT JOIN s ON o.pid = s.pid AND o.ts_ns >= s.ts_ns) "

static int syscalls_table(struct report *r)
{
	static const struct rcol cols[] = {
		{ "tid", RC_INT, NULL }, { "syscall", RC_TEXT, NULL },
		{ "blocked", RC_NS, "blocked_ns" }, { "count", RC_INT, NULL },
	};
	char sql[1024];
	duckdb_result res;
	struct rtable t;
	int err;

	snprintf(sql, sizeof(sql), BLOCKING_SQL
		 "SELECT pid::BIGINT, CASE WHEN sc = '' THEN '(none)' ELSE sc END, "
		 "sum(latency_ns)::BIGINT AS ns, count(*)::BIGINT FROM b GROUP BY pid, sc "
		 "QUALIFY row_number() OVER (PARTITION BY pid ORDER BY ns DESC, sc) <= 3 "
		 "ORDER BY ns DESC LIMIT %u", r->o->top);
	if ((err = report__query(r, "blocking syscalls", sql, &res)))
		return err;
	rtable__init(&t, "blocking_syscalls", "Top blocking syscalls per thread (off-CPU time)", cols, 4);
	for (idx_t i = 0; i < duckdb_row_count(&res); i++) {
		char *sc = duckdb_value_varchar(&res, 1, i);

		rtable__row(&t);
		rtable__int(&t, duckdb_value_int64(&res, 0, i));
		rtable__str(&t, sc ? sc : "");
		rtable__int(&t, duckdb_value_int64(&res, 2, i));
		rtable__int(&t, duckdb_value_int64(&res, 3, i));
		duckdb_free(sc);
	}
	duckdb_destroy_result(&res);
	report__emit(r, &t);
	return 0;
}

static int wakers_table(struct report *r)
{
	static const struct rcol cols[] = {
		{ "tid", RC_INT, NULL }, { "waker tid", RC_INT, "waker_tid" },
		{ "waker", RC_TEXT, "waker_name" }, { "blocked", RC_NS, "blocked_ns" },
		{ "count", RC_INT, NULL },
	};
	char sql[1024];
	duckdb_result res;
	struct rtable t;
	int err;

	/* No waker: an interrupt or a timer woke it (or an older trace has no waker_pid). */
	snprintf(sql, sizeof(sql),
		 "WITH n AS (SELECT pid, arg_max(process_name, ts_ns) AS name FROM trace GROUP BY pid), "
		 "w AS (SELECT pid, coalesce(waker_pid, 0) AS wp, latency_ns FROM events "
		 "WHERE event_type = 'off_cpu') "
		 "SELECT w.pid::BIGINT, w.wp::BIGINT, CASE WHEN w.wp = 0 THEN '(interrupt or timer)' "
		 "ELSE coalesce(n.name, '(not traced)') END, sum(latency_ns)::BIGINT AS ns, count(*)::BIGINT "
		 "FROM w LEFT JOIN n ON n.pid = w.wp GROUP BY w.pid, w.wp, n.name "
		 "QUALIFY row_number() OVER (PARTITION BY w.pid ORDER BY ns DESC, w.wp) <= 3 "
		 "ORDER BY ns DESC LIMIT %u", r->o->top);
	if ((err = report__query(r, "wakers", sql, &res)))
		return err;
	rtable__init(&t, "top_wakers", "Top wakers per thread (off-CPU time they ended)", cols, 5);
	for (idx_t i = 0; i < duckdb_row_count(&res); i++) {
		char *n = duckdb_value_varchar(&res, 2, i);

		rtable__row(&t);
		rtable__int(&t, duckdb_value_int64(&res, 0, i));
		rtable__int(&t, duckdb_value_int64(&res, 1, i));
		rtable__str(&t, n ? n : "");
		rtable__int(&t, duckdb_value_int64(&res, 3, i));
		rtable__int(&t, duckdb_value_int64(&res, 4, i));
		duckdb_free(n);
	}
	duckdb_destroy_result(&res);
	report__emit(r, &t);
	return 0;
}

/* The window as the sections see it (`events`' bounds). */
void report__window(const struct report *r, uint64_t *start, uint64_t *end)
{
	*start = r->t0 + (r->o->has_start ? r->o->start_ns : 0);
	*end = r->o->has_end ? r->t0 + r->o->end_ns : UINT64_MAX;
}

int report__threads(struct report *r)
{
	struct sched s;
	uint64_t start, end;
	int err = sched__load(r->con, r->tf, &s);

	if (err)
		return err;
	report__window(r, &start, &end);
	err = totals_table(r, &s, start, end);
	if (!err && !s.has_runnable && !r->j)
		fputs("  runnable: only preemptions; the time from a wakeup to running again is "
		      "counted as blocked\n  (the trace has no runnable_ns column)\n", r->out);
	if (!err && r->j) {
		json__key(r->j, "thread_states_note");
		if (s.has_runnable)
			json__null(r->j);
		else
			json__str(r->j, "runnable time after a wakeup is unknown (the trace has no "
				  "runnable_ns column): sleeping and disk include it");
	}
	sched__free(&s);
	if (!err)
		err = syscalls_table(r);
	return err ? err : wakers_table(r);
}
