/* The report's frame: open and validate the trace, set up the filtered `events` view,
 * the header, the drop counters, and the sections in order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/strbuf.h"
#include "export/export.h"
#include "report/exact.h"
#include "report/report.h"
#include "trace/duck.h"
#include "trace/schema.h"
#include "trace/tracefile.h"
#include "trace/view.h"

int report__query(struct report *r, const char *what, const char *sql, duckdb_result *res)
{
	if (duckdb_query(r->con, sql, res) == DuckDBError) {
		log__error("reading %s: %s", what, duckdb_result_error(res));
		duckdb_destroy_result(res);
		return -EIO;
	}
	return 0;
}

void report__emit(struct report *r, struct rtable *t)
{
	if (r->j)
		rtable__json(t, r->j);
	else
		rtable__print(t, r->out, REPORT_WIDTH);
	rtable__free(t);
}

/* " AND process_name = 'COMM'" (quotes doubled) into b, or nothing. */
static void comm_clause(struct strbuf *b, const char *comm)
{
	if (!comm)
		return;
	strbuf__addf(b, " AND process_name = '");
	for (const char *c = comm; *c; c++)
		strbuf__add(b, *c == '\'' ? "''" : c, *c == '\'' ? 2 : 1);
	strbuf__addf(b, "'");
}

int report__views(struct report *r, const struct trace_file *tf)
{
	const struct report_opts *o = r->o;
	struct strbuf comm = { 0 };
	char *sql = NULL, pid[96] = "";
	duckdb_result res;
	int err;

	err = trace_view__create(r->con, tf, "trace");
	if (err || (err = report__query(r, "the time range", "SELECT coalesce(min(ts_ns), 0) FROM trace", &res)))
		return err;
	r->t0 = duckdb_value_uint64(&res, 0, 0);
	duckdb_destroy_result(&res);
	if (o->has_pid)
		snprintf(pid, sizeof(pid), " AND (pid = %u OR tgid = %u)", o->pid, o->pid);
	comm_clause(&comm, o->comm);
	if (comm.err || asprintf(&sql, "CREATE VIEW events AS SELECT * FROM trace WHERE ts_ns >= %llu "
				 "AND ts_ns <= %llu%s%s",
				 (unsigned long long)(r->t0 + (o->has_start ? o->start_ns : 0)),
				 (unsigned long long)(o->has_end ? r->t0 + o->end_ns : UINT64_MAX), pid,
				 comm.s ? comm.s : "") < 0) {
		strbuf__free(&comm);
		return -ENOMEM;
	}
	strbuf__free(&comm);
	err = duck__exec(r->con, sql);
	free(sql);
	return err ? err : exact__load(r, tf);
}

static const char *meta(duckdb_result *res, const char *key)
{
	for (idx_t i = 0; i < duckdb_row_count(res); i++) {
		const char *k = duckdb_value_varchar_internal(res, 0, i);

		if (k && !strcmp(k, key))
			return duckdb_value_varchar_internal(res, 1, i);
	}
	return NULL;
}

static int header(struct report *r, const struct trace_file *tf)
{
	static const struct rcol cols[] = { { "key", RC_TEXT, NULL }, { "value", RC_TEXT, NULL } };
	static const char *const keys[] = { META_COMMAND, META_VERSION, META_HOSTNAME, META_KERNEL,
					    META_EXIT_STATUS, META_STACK_MODE, META_MISSING_PROBES,
					    "probex.incomplete" };
	duckdb_result res, cnt;
	struct rtable t;
	char buf[64];
	char *sql;
	int err;

	if (asprintf(&sql, "SELECT decode(key)::VARCHAR, decode(value)::VARCHAR FROM parquet_kv_metadata(%s)",
		     tf->literal) < 0)
		return -ENOMEM;
	err = report__query(r, "the metadata", sql, &res);
	free(sql);
	if (err)
		return err;
	/* Cut stacks: the flame graph's [truncated] frames, counted where the reader starts. */
	if ((err = report__query(r, "the rows", "SELECT count(*), max(ts_ns) - min(ts_ns), "
				 "(SELECT count(*) FROM trace), count(DISTINCT tgid), count(DISTINCT pid), "
				 "count(*) FILTER (WHERE list_contains(stack_trace, '[truncated]')), "
				 "count(*) FILTER (WHERE stack_trace IS NOT NULL) FROM events", &cnt))) {
		duckdb_destroy_result(&res);
		return err;
	}
	rtable__init(&t, "trace", "Trace", cols, 2);
	rtable__row(&t);
	rtable__str(&t, "file");
	rtable__str(&t, tf->path);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = meta(&res, keys[i]);

		if (!v)
			continue;
		rtable__row(&t);
		rtable__str(&t, keys[i] + strlen("probex."));
		rtable__str(&t, v);
	}
	rtable__row(&t);
	rtable__str(&t, "events");
	snprintf(buf, sizeof(buf), "%llu of %llu", (unsigned long long)duckdb_value_uint64(&cnt, 0, 0),
		 (unsigned long long)duckdb_value_uint64(&cnt, 2, 0));
	rtable__str(&t, buf);
	rtable__row(&t);
	rtable__str(&t, "processes");
	snprintf(buf, sizeof(buf), "%llu process%s, %llu thread%s",
		 (unsigned long long)duckdb_value_uint64(&cnt, 3, 0),
		 duckdb_value_uint64(&cnt, 3, 0) == 1 ? "" : "es",
		 (unsigned long long)duckdb_value_uint64(&cnt, 4, 0),
		 duckdb_value_uint64(&cnt, 4, 0) == 1 ? "" : "s");
	rtable__str(&t, buf);
	rtable__row(&t);
	rtable__str(&t, "duration");
	rtable__fmt_ns(buf, sizeof(buf), (int64_t)duckdb_value_uint64(&cnt, 1, 0));
	rtable__str(&t, buf);
	if (duckdb_value_uint64(&cnt, 6, 0)) {
		uint64_t cut = duckdb_value_uint64(&cnt, 5, 0), all = duckdb_value_uint64(&cnt, 6, 0);

		rtable__row(&t);
		rtable__str(&t, "stacks cut ([truncated])");
		snprintf(buf, sizeof(buf), "%llu of %llu (%.1f%%)", (unsigned long long)cut,
			 (unsigned long long)all, 100.0 * cut / all);
		rtable__str(&t, buf);
	}
	rtable__row(&t);
	rtable__str(&t, "sample_freq_hz");
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)tf->sample_freq_hz);
	rtable__str(&t, buf);
	report__emit(r, &t);
	duckdb_destroy_result(&res);
	duckdb_destroy_result(&cnt);
	return 0;
}

/* Counters of probex.drops that count what was recorded, not what was lost (the syscall
 * exits without their enter: the command's own execve, calls in flight at attach; the
 * Python stacks, processes and code objects seen). */
static const char *const not_drops =
	"'cpu_sampler_calls', 'cpu_samples_traced', 'records_submitted', 'off_cpu_short_intervals', "
	"'off_cpu_short_ns', 'off_cpu_stacks_at_end', 'syscall_exit_unpaired', 'python_stacks', "
	"'python_processes', 'python_code_objects'";

/* The counters of probex.drops that lost something, when any did. */
static int drops(struct report *r, const struct trace_file *tf)
{
	static const struct rcol cols[] = { { "counter", RC_TEXT, NULL }, { "count", RC_INT, NULL } };
	duckdb_result res;
	struct rtable t;
	char *sql;
	int err;

	if (asprintf(&sql, "SELECT key, value::BIGINT FROM json_each((SELECT decode(value) FROM "
		     "parquet_kv_metadata(%s) WHERE decode(key) = '%s' LIMIT 1)) WHERE value::BIGINT <> 0 "
		     "AND key NOT IN (%s) ORDER BY value::BIGINT DESC, key", tf->literal, META_DROPS,
		     not_drops) < 0)
		return -ENOMEM;
	err = report__query(r, "the drop counters", sql, &res);
	free(sql);
	if (err)
		return err;
	rtable__init(&t, "drops", "Drop counters (probex.drops)", cols, 2);
	for (idx_t i = 0; i < duckdb_row_count(&res); i++) {
		char *k = duckdb_value_varchar(&res, 0, i);

		rtable__row(&t);
		rtable__str(&t, k ? k : "");
		rtable__int(&t, duckdb_value_int64(&res, 1, i));
		duckdb_free(k);
	}
	duckdb_destroy_result(&res);
	if (t.rows || r->j)
		report__emit(r, &t);
	else
		rtable__free(&t);
	return 0;
}

static int sections(struct report *r, const struct trace_file *tf)
{
	static const struct {
		const char *what;
		int (*fn)(struct report *r);
	} list[] = {
		{ "processes", report__processes }, { "syscalls", report__syscalls },
		{ "files", report__files },
		{ "io_uring", report__io_uring },   { "page faults", report__faults },
		{ "scheduling", report__sched },    { "thread states", report__threads },
		{ "probes", report__probes },
		{ "stacks", report__stacks },
	};
	_Static_assert(sizeof(list) / sizeof(list[0]) == REPORT_SECTIONS, "REPORT_SECTIONS counts them");
	int err = header(r, tf);

	if (!err)
		err = exact__drop_line(r, tf);

	for (size_t i = 0; !err && i < sizeof(list) / sizeof(list[0]); i++) {
		progress__phase(r->o->progress, list[i].what);
		err = list[i].fn(r);
	}
	progress__done(r->o->progress);
	return err ? err : drops(r, tf);
}

int report__run(const char *path, const struct report_opts *o, FILE *out)
{
	struct report r = { .o = o, .out = out };
	duckdb_database db;
	struct trace_file tf;
	struct json j;
	int err;

	err = duck__open_memory(&db, &r.con, 0);
	if (err)
		return err;
	err = trace_file__open(path, r.con, &tf);
	if (err)
		goto out_db;
	r.sample_freq_hz = tf.sample_freq_hz;
	r.tf = &tf;
	if ((err = report__views(&r, &tf)))
		goto out;
	if (o->json) {
		json__init(&j);
		r.j = &j;
		json__obj_begin(&j);
	}
	err = sections(&r, &tf);
	if (o->json) {
		json__obj_end(&j);
		if (!err)
			err = json__print(&j, out);
		json__free(&j);
	}
out:
	trace_file__free(&tf);
out_db:
	duckdb_disconnect(&r.con);
	duckdb_close(&db);
	return err;
}
