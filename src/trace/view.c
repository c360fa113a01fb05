#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/strbuf.h"
#include "trace/schema.h"
#include "trace/view.h"

static const char *duck_type(enum pq_type t)
{
	switch (t) {
	case PQ_U8: return "UTINYINT";
	case PQ_U32: return "UINTEGER";
	case PQ_I32: return "INTEGER";
	case PQ_U64: return "UBIGINT";
	case PQ_I64: return "BIGINT";
	case PQ_BOOL: return "BOOLEAN";
	case PQ_STRING: return "VARCHAR";
	case PQ_STRING_LIST: return "VARCHAR[]";
	}
	return "VARCHAR";
}

/* Which schema columns the file has. */
static int present(duckdb_connection con, const struct trace_file *tf, bool *seen)
{
	duckdb_result res;
	char *sql;

	if (asprintf(&sql, "SELECT column_name FROM (DESCRIBE SELECT * FROM %s)", tf->source) < 0)
		return -ENOMEM;
	if (duckdb_query(con, sql, &res) == DuckDBError) {
		log__error("%s: unreadable Parquet schema: %s", tf->path, duckdb_result_error(&res));
		duckdb_destroy_result(&res);
		free(sql);
		return -EINVAL;
	}
	free(sql);
	for (idx_t i = 0; i < duckdb_row_count(&res); i++) {
		const char *name = duckdb_value_varchar_internal(&res, 0, i);

		for (int c = 0; name && c < TC__COUNT; c++)
			if (!strcmp(trace_schema[c].name, name))
				seen[c] = true;
	}
	duckdb_destroy_result(&res);
	return 0;
}

int trace_view__create(duckdb_connection con, const struct trace_file *tf, const char *name)
{
	bool seen[TC__COUNT] = { 0 };
	struct strbuf sql = { 0 };
	duckdb_result res;
	int err;

	if ((err = present(con, tf, seen)))
		return err;
	strbuf__addf(&sql, "CREATE VIEW %s AS SELECT *", name);
	/* Without latency_ns, an exit's latency is the time since its thread's enter of the
	 * same syscall when that is the row just before it (the pairing the kernel does). */
	if (!seen[TC_LATENCY])
		strbuf__addf(&sql, ", (CASE WHEN event_type LIKE 'syscall\\_%%\\_exit' ESCAPE '\\' AND "
			     "lag(event_type) OVER w = replace(event_type, '_exit', '_enter') THEN "
			     "ts_ns - lag(ts_ns) OVER w END)::UBIGINT AS latency_ns");
	for (int c = 0; c < TC__COUNT; c++)
		if (!seen[c] && c != TC_LATENCY)
			strbuf__addf(&sql, ", NULL::%s AS %s", duck_type(trace_schema[c].type),
				     trace_schema[c].name);
	strbuf__addf(&sql, " FROM %s", tf->source);
	if (!seen[TC_LATENCY])
		strbuf__addf(&sql, " WINDOW w AS (PARTITION BY pid, regexp_replace(event_type, "
			     "'_(enter|exit)$', '') ORDER BY ts_ns)");
	if (sql.err) {
		strbuf__free(&sql);
		return -ENOMEM;
	}
	if (duckdb_query(con, sql.s, &res) == DuckDBError) {
		log__error("%s: %s", tf->path, duckdb_result_error(&res));
		err = -EIO;
	}
	duckdb_destroy_result(&res);
	strbuf__free(&sql);
	return err;
}
