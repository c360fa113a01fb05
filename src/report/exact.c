/* probex.exact in the report: the `exact` view and the drop line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "report/exact.h"
#include "trace/duck.h"
#include "trace/schema.h"

int exact__load(struct report *r, const struct trace_file *tf)
{
	const struct report_opts *o = r->o;
	char *sql, scope[64] = "true";
	int err;

	if (o->has_start || o->has_end)
		snprintf(scope, sizeof(scope), "false");
	else if (o->has_pid)
		snprintf(scope, sizeof(scope), "tgid = %u", o->pid);
	if (asprintf(&sql, "CREATE VIEW exact AS SELECT * FROM (SELECT (value->>'tgid')::UBIGINT AS tgid, "
		     "value->>'event_type' AS event_type, (value->>'nr')::UBIGINT AS nr, "
		     "(value->>'count')::UBIGINT AS count, (value->>'errors')::UBIGINT AS errors, "
		     "(value->>'total_ns')::UBIGINT AS total_ns FROM json_each((SELECT decode(value) "
		     "FROM parquet_kv_metadata(%s) WHERE decode(key) = '%s' LIMIT 1))) WHERE %s",
		     tf->literal, META_EXACT, scope) < 0)
		return -ENOMEM;
	err = duck__exec(r->con, sql);
	free(sql);
	return err;
}

/* Record kinds as probex.drops names them (ringbuf_KIND) and as the exact counts do. */
static const struct {
	const char *drop, *exact_like, *what;
} kinds[] = {
	{ "ringbuf_syscall", "syscall\\_%\\_exit", "syscalls" },
	{ "ringbuf_syscall_unfinished", "syscall\\_%\\_unfinished", "unfinished syscalls" },
	{ "ringbuf_sched_switch", "sched_switch", "sched_switch" },
	{ "ringbuf_off_cpu", "off_cpu", "off_cpu" },
	{ "ringbuf_page_fault", "page_fault", "page_fault" },
	{ "ringbuf_cpu_sample", "cpu_sample", "cpu_sample" },
	{ "ringbuf_io_uring_complete", "io_uring_complete", "io_uring_complete" },
	{ "ringbuf_process_fork", "process_fork", "process_fork" },
	{ "ringbuf_process_exit", "process_exit", "process_exit" },
	{ "ringbuf_process_exec", "process_exec", "process_exec" },
};

/* "(dropped, counted)" per kind over the whole recording. */
static int drop_counts(struct report *r, const struct trace_file *tf, uint64_t *dropped,
		       uint64_t *counted)
{
	duckdb_result res;
	char *sql;
	int err;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (asprintf(&sql, "SELECT coalesce((SELECT (value->>'%s')::UBIGINT FROM (SELECT "
			     "decode(value)::JSON AS value FROM parquet_kv_metadata(%s) WHERE decode(key) "
			     "= '%s' LIMIT 1)), 0), (SELECT coalesce(sum((value->>'count')::UBIGINT), 0) "
			     "FROM json_each((SELECT decode(value) FROM parquet_kv_metadata(%s) WHERE "
			     "decode(key) = '%s' LIMIT 1)) WHERE value->>'event_type' LIKE '%s' ESCAPE '\\')",
			     kinds[i].drop, tf->literal, META_DROPS, tf->literal, META_EXACT,
			     kinds[i].exact_like) < 0)
			return -ENOMEM;
		err = report__query(r, "the drop counters", sql, &res);
		free(sql);
		if (err)
			return err;
		dropped[i] = duckdb_value_uint64(&res, 0, 0);
		counted[i] = duckdb_value_uint64(&res, 1, 0);
		duckdb_destroy_result(&res);
	}
	return 0;
}

int exact__drop_line(struct report *r, const struct trace_file *tf)
{
	uint64_t dropped[sizeof(kinds) / sizeof(kinds[0])], counted[sizeof(kinds) / sizeof(kinds[0])];
	uint64_t all_dropped = 0, all_counted = 0;
	struct strbuf b = { 0 };
	int err = drop_counts(r, tf, dropped, counted);

	if (err)
		return err;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		all_dropped += dropped[i];
		all_counted += counted[i];
	}
	if (!all_dropped)
		return 0;
	strbuf__addf(&b, "dropped %llu records", (unsigned long long)all_dropped);
	if (all_counted >= all_dropped)
		strbuf__addf(&b, " of %llu (%.1f%%)", (unsigned long long)all_counted,
			     100.0 * (double)all_dropped / (double)all_counted);
	strbuf__add(&b, ":", 1);
	for (size_t i = 0, n = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (dropped[i])
			strbuf__addf(&b, "%s %llu %s", n++ ? "," : "", (unsigned long long)dropped[i],
				     kinds[i].what);
	strbuf__addf(&b, "; %s; record with --lossless or a larger --ringbuf-size to keep every row",
		     all_counted ? "counts marked * rest on the rows kept, the others are exact"
				 : "the counts rest on the rows kept");
	if (b.err)
		return b.err;
	if (r->j) {
		json__key(r->j, "dropped");
		json__str(r->j, b.s);
	} else {
		fprintf(r->out, "\n%s\n", b.s);
	}
	strbuf__free(&b);
	return 0;
}
