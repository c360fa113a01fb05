/* One side of the diff: the trace opened and validated as `probex report` opens it, the
 * filtered views, and the metadata the header compares. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "diff/diff_int.h"
#include "trace/duck.h"
#include "trace/schema.h"

/* The value of metadata key, or "" (never NULL: out of memory aside). */
static char *meta(struct diff_side *s, const char *key)
{
	duckdb_result res;
	char *sql, *v = NULL;

	if (asprintf(&sql, "SELECT decode(value)::VARCHAR FROM parquet_kv_metadata(%s) "
		     "WHERE decode(key) = '%s' LIMIT 1", s->tf.literal, key) < 0)
		return NULL;
	if (duckdb_query(s->r.con, sql, &res) == DuckDBSuccess && duckdb_row_count(&res))
		v = duckdb_value_varchar(&res, 0, 0);
	duckdb_destroy_result(&res);
	free(sql);
	if (!v)
		return strdup("");
	sql = strdup(v);
	duckdb_free(v);
	return sql;
}

/* probex.command is a JSON array of argv; anything else is shown as it is. */
static int command(struct diff_side *s)
{
	struct strbuf b = { 0 };
	duckdb_result res;
	char *sql;

	if (asprintf(&sql, "SELECT unnest(json_extract_string(decode(value)::VARCHAR, '$[*]')) FROM "
		     "parquet_kv_metadata(%s) WHERE decode(key) = '%s'", s->tf.literal, META_COMMAND) < 0)
		return -ENOMEM;
	if (duckdb_query(s->r.con, sql, &res) == DuckDBSuccess) {
		for (idx_t i = 0; i < duckdb_row_count(&res); i++) {
			char *a = duckdb_value_varchar(&res, 0, i);

			strbuf__addf(&b, "%s%s", i ? " " : "", a ? a : "");
			if (!i)
				s->program = strdup(a ? a : "");
			duckdb_free(a);
		}
	}
	duckdb_destroy_result(&res);
	free(sql);
	if (!b.s) {
		strbuf__free(&b);
		s->command = meta(s, META_COMMAND);
		s->program = strdup(s->command ? s->command : "");
		return s->command && s->program ? 0 : -ENOMEM;
	}
	s->command = b.s;
	return b.err || !s->program ? -ENOMEM : 0;
}

static int extent(struct diff_side *s)
{
	duckdb_result res;
	int err;

	err = report__query(&s->r, "the rows", "SELECT count(*), coalesce(max(ts_ns) - min(ts_ns), 0), "
		"coalesce(sum(coalesce(stack_weight, 1)) FILTER (event_type = 'cpu_sample'), 0)::UBIGINT, "
		"count(*) FILTER (event_type LIKE 'syscall\\_%\\_exit' ESCAPE '\\'), "
		"coalesce(sum(latency_ns) FILTER (event_type LIKE 'syscall\\_%\\_exit' ESCAPE '\\'), 0)::UBIGINT, "
		"coalesce(sum(latency_ns) FILTER (event_type = 'off_cpu'), 0)::UBIGINT, "
		"count(DISTINCT tgid) FROM events", &res);
	if (err)
		return err;
	s->events = duckdb_value_uint64(&res, 0, 0);
	s->duration_ns = duckdb_value_uint64(&res, 1, 0);
	s->samples = duckdb_value_uint64(&res, 2, 0);
	s->syscalls = duckdb_value_uint64(&res, 3, 0);
	s->syscall_ns = duckdb_value_uint64(&res, 4, 0);
	s->off_cpu_ns = duckdb_value_uint64(&res, 5, 0);
	s->processes = duckdb_value_uint64(&res, 6, 0);
	duckdb_destroy_result(&res);
	return 0;
}

int diff_side__open(struct diff_side *s, const char *path, const struct diff_opts *o)
{
	int err;

	s->r.o = &o->r;
	if ((err = duck__open_memory(&s->db, &s->r.con, 0)))
		return err;
	s->opened = true;
	if ((err = trace_file__open(path, s->r.con, &s->tf))) {
		s->tf.path = NULL;
		return err;
	}
	s->r.sample_freq_hz = s->tf.sample_freq_hz;
	s->r.tf = &s->tf;
	s->period_ns = 1e9 / (double)s->tf.sample_freq_hz;
	if ((err = report__views(&s->r, &s->tf)) || (err = extent(s)))
		return err;
	s->version = meta(s, META_VERSION);
	s->stack_mode = meta(s, META_STACK_MODE);
	s->missing_probes = meta(s, META_MISSING_PROBES);
	s->kernel = meta(s, META_KERNEL);
	if (!s->version || !s->stack_mode || !s->missing_probes || !s->kernel)
		return -ENOMEM;
	return command(s);
}

void diff_side__close(struct diff_side *s)
{
	if (!s->opened)
		return;
	if (s->tf.path)
		trace_file__free(&s->tf);
	duckdb_disconnect(&s->r.con);
	duckdb_close(&s->db);
	free(s->command);
	free(s->program);
	free(s->version);
	free(s->stack_mode);
	free(s->missing_probes);
	free(s->kernel);
	s->opened = false;
}
