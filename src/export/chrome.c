/* Chrome Trace Event JSON (the "JSON Array/Object Format" chrome://tracing and
 * ui.perfetto.dev open): a track per thread (pid = process, tid = thread) named by
 * process and thread metadata; syscalls and off-CPU intervals as complete ("X") slices,
 * io_uring operations as async slices, CPU samples and process events as instants.
 * Times are microseconds from the first row of the trace. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/strbuf.h"
#include "export/export.h"
#include "trace/duck.h"
#include "trace/schema.h"
#include "trace/tracefile.h"

/* Append a string literal (its length known at compile time). */
#define ADD_LIT(b, lit) strbuf__add(b, lit, sizeof(lit) - 1)

struct cx {
	FILE *out;
	duckdb_connection con;
	struct strbuf b;
	uint64_t start;
	uint64_t n;		/* events written */
	const struct export_opts *o;
};

/* Column c of a chunk row; all queries below cast to UBIGINT, BIGINT or VARCHAR. */
struct row {
	duckdb_data_chunk chunk;
	idx_t r;
};

static bool is_null(const struct row *w, idx_t c)
{
	uint64_t *v = duckdb_vector_get_validity(duckdb_data_chunk_get_vector(w->chunk, c));

	return v && !duckdb_validity_row_is_valid(v, w->r);
}

static uint64_t u64(const struct row *w, idx_t c)
{
	return is_null(w, c) ? 0 : ((uint64_t *)duckdb_vector_get_data(duckdb_data_chunk_get_vector(w->chunk, c)))[w->r];
}

static int64_t i64(const struct row *w, idx_t c)
{
	return (int64_t)u64(w, c);
}

/* A VARCHAR cell appended as a JSON string ("" when NULL). */
static void str(struct cx *x, const struct row *w, idx_t c)
{
	uint32_t len = 0;
	const char *s = "";
	char *tmp;

	if (!is_null(w, c))
		s = trace_file__cell(duckdb_vector_get_data(duckdb_data_chunk_get_vector(w->chunk, c)), w->r, &len);
	tmp = strndup(s, len);
	strbuf__add_json_str(&x->b, tmp ? tmp : "");
	free(tmp);
}

static void ts(struct cx *x, const char *key, uint64_t ns)
{
	strbuf__addf(&x->b, ",\"%s\":%llu.%03llu", key, (unsigned long long)(ns / 1000),
		     (unsigned long long)(ns % 1000));
}

/* Start an event object: {"ph":PH,"pid":P,"tid":T */
static void begin(struct cx *x, const char *ph, uint64_t pid, uint64_t tid)
{
	x->b.len = 0;
	strbuf__addf(&x->b, "%s{\"ph\":\"%s\",\"pid\":%llu,\"tid\":%llu", x->n++ ? ",\n" : "\n", ph,
		     (unsigned long long)pid, (unsigned long long)tid);
}

static void end(struct cx *x)
{
	ADD_LIT(&x->b, "}");
	if (x->b.s)
		fwrite(x->b.s, 1, x->b.len, x->out);
}

typedef void (*row_fn)(struct cx *x, const struct row *w);

/* Run sql (with the pid filter appended where it holds %s) and call fn on every row. */
static int each_row(struct cx *x, const char *what, const char *fmt, row_fn fn)
{
	char pidc[96], sql[2048];
	duckdb_data_chunk chunk;
	duckdb_result res;

	export__pid_clause(x->o, pidc, sizeof(pidc));
	snprintf(sql, sizeof(sql), fmt, pidc);
	if (duck__stream(x->con, sql, what, &res))
		return -EIO;
	while ((chunk = duckdb_fetch_chunk(res))) {
		struct row w = { chunk, 0 };
		idx_t n = duckdb_data_chunk_get_size(chunk);

		for (w.r = 0; w.r < n; w.r++)
			fn(x, &w);
		progress__rows(x->o->progress, n);
		duckdb_destroy_data_chunk(&chunk);
	}
	if (duckdb_result_error(&res)) {
		log__error("reading %s: %s", what, duckdb_result_error(&res));
		duckdb_destroy_result(&res);
		return -EIO;
	}
	duckdb_destroy_result(&res);
	return x->b.err ? x->b.err : ferror(x->out) ? -EIO : 0;
}

/* tgid, pid, thread name, is_main: process_name and thread_name metadata events. */
static void on_thread(struct cx *x, const struct row *w)
{
	for (int meta = 0; meta < 1 + (int)u64(w, 3); meta++) {
		begin(x, "M", u64(w, 0), u64(w, 1));
		strbuf__addf(&x->b, ",\"name\":\"%s\",\"args\":{\"name\":", meta ? "process_name" : "thread_name");
		str(x, w, 2);
		ADD_LIT(&x->b, "}");
		end(x);
	}
}

/* tgid, pid, name, enter ts, latency, ret */
static void on_syscall(struct cx *x, const struct row *w)
{
	begin(x, "X", u64(w, 0), u64(w, 1));
	ADD_LIT(&x->b, ",\"cat\":\"syscall\",\"name\":");
	str(x, w, 2);
	ts(x, "ts", u64(w, 3) - x->start);
	ts(x, "dur", u64(w, 4));
	strbuf__addf(&x->b, ",\"args\":{\"ret\":%lld}", (long long)i64(w, 5));
	end(x);
}

/* tgid, pid, out ts, duration, prev_state */
static void on_offcpu(struct cx *x, const struct row *w)
{
	begin(x, "X", u64(w, 0), u64(w, 1));
	strbuf__addf(&x->b, ",\"cat\":\"sched\",\"name\":\"%s\"",
		     (i64(w, 4) == TRACE_STATE_RUNNABLE || i64(w, 4) == TRACE_STATE_PREEMPTED) ? "off-cpu (preempted)" : "off-cpu (blocked)");
	ts(x, "ts", u64(w, 2) - x->start);
	ts(x, "dur", u64(w, 3));
	strbuf__addf(&x->b, ",\"args\":{\"prev_state\":%lld}", (long long)i64(w, 4));
	end(x);
}

/* tgid, pid, submit ts, completion ts, opcode, res, id */
static void on_uring(struct cx *x, const struct row *w)
{
	for (int e = 0; e < 2; e++) {
		begin(x, e ? "e" : "b", u64(w, 0), u64(w, 1));
		strbuf__addf(&x->b, ",\"cat\":\"io_uring\",\"id\":%llu,\"name\":\"io_uring op %llu\"",
			     (unsigned long long)u64(w, 6), (unsigned long long)u64(w, 4));
		ts(x, "ts", u64(w, e ? 3 : 2) - x->start);
		if (e)
			strbuf__addf(&x->b, ",\"args\":{\"res\":%lld}", (long long)i64(w, 5));
		end(x);
	}
}

/* tgid, pid, ts, name, detail (stack or exit code or file), event type */
static void on_instant(struct cx *x, const struct row *w)
{
	begin(x, "i", u64(w, 0), u64(w, 1));
	ADD_LIT(&x->b, ",\"s\":\"t\",\"cat\":");
	str(x, w, 5);
	ADD_LIT(&x->b, ",\"name\":");
	str(x, w, 3);
	ts(x, "ts", u64(w, 2) - x->start);
	ADD_LIT(&x->b, ",\"args\":{\"detail\":");
	str(x, w, 4);
	ADD_LIT(&x->b, "}");
	end(x);
}

#define WHERE_PID "%s"
#define MARKS "('" STACK_MARK_USER "', '" STACK_MARK_KERNEL "')"

static const struct {
	const char *what;
	const char *sql;
	row_fn fn;
} parts[] = {
	{ "threads",
	  "SELECT tgid::UBIGINT, pid::UBIGINT, coalesce(arg_max(process_name, ts_ns), '[' || pid || ']'), "
	  "(pid = tgid)::UBIGINT "
	  "FROM events WHERE true" WHERE_PID " GROUP BY tgid, pid ORDER BY 1, 2", on_thread },
	{ "syscalls",
	  "SELECT tgid::UBIGINT, pid::UBIGINT, regexp_extract(event_type, '^syscall_(.*)_exit$', 1), "
	  "(ts_ns - latency_ns)::UBIGINT, latency_ns::UBIGINT, ret::BIGINT FROM events "
	  "WHERE event_type LIKE 'syscall\\_%%\\_exit' ESCAPE '\\' AND latency_ns IS NOT NULL"
	  WHERE_PID " ORDER BY ts_ns", on_syscall },
	/* A thread is off CPU from its switch-out to its next switch-in (SWITCH_INTERVALS_SQL). */
	{ "context switches",
	  SWITCH_INTERVALS_SQL(WHERE_PID) "SELECT tgid::UBIGINT, pid::UBIGINT, ts_ns::UBIGINT, (nt - ts_ns)::UBIGINT, "
	  "prev_state::BIGINT FROM q WHERE is_out AND nin ORDER BY ts_ns", on_offcpu },
	{ "io_uring completions",
	  "SELECT tgid::UBIGINT, pid::UBIGINT, submit_ts_ns::UBIGINT, ts_ns::UBIGINT, "
	  "io_uring_opcode::UBIGINT, io_uring_res::BIGINT, row_number() OVER ()::UBIGINT FROM events "
	  "WHERE event_type = 'io_uring_complete' AND submit_ts_ns > 0" WHERE_PID, on_uring },
	{ "instants",
	  "SELECT tgid::UBIGINT, pid::UBIGINT, ts_ns::UBIGINT, CASE event_type WHEN 'cpu_sample' THEN "
	  "coalesce(list_filter(stack_trace, f -> f NOT IN " MARKS ")[-1], 'cpu_sample') "
	  "ELSE event_type END, CASE event_type "
	  "WHEN 'cpu_sample' THEN array_to_string(list_filter(stack_trace, f -> f NOT IN " MARKS "), "
	  "';') WHEN 'process_exit' THEN 'exit code ' || exit_code WHEN 'process_exec' "
	  "THEN filename ELSE 'child ' || child_pid END, event_type FROM events WHERE event_type IN ('cpu_sample', "
	  "'process_fork', 'process_exec', 'process_exit')" WHERE_PID " ORDER BY ts_ns", on_instant },
};

int export__chrome(duckdb_connection con, const struct export_opts *o, FILE *out, uint64_t start_ns)
{
	struct cx x = { .out = out, .con = con, .o = o, .start = start_ns };
	int err = 0;

	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"exporter\":\"probex " PROBEX_VERSION
	      "\"},\"traceEvents\":[", out);
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]) && !err; i++) {
		progress__phase(o->progress, parts[i].what);
		err = each_row(&x, parts[i].what, parts[i].sql, parts[i].fn);
	}
	progress__done(o->progress);
	fputs("\n]}\n", out);
	strbuf__free(&x.b);
	return err ? err : ferror(out) ? -EIO : 0;
}
