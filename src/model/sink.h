/* DuckDB-side sinks: a C scalar function that DuckDB calls on its own worker threads with
 * batches of rows, placed in a `SELECT count(sink(...)) FROM read_parquet(...)`.  The scan
 * then runs in parallel and nothing is copied through a result set — three to four times
 * faster than fetching the same columns from a streaming result. */
#ifndef PROBEX_MODEL_SINK_H
#define PROBEX_MODEL_SINK_H

#include <duckdb.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sink_spec {
	const char *prefix;		/* the function is named <prefix>_<n>, unique per process */
	duckdb_scalar_function_t fn;
	void *ctx;			/* duckdb_scalar_function_get_extra_info() in fn */
	const duckdb_type *params;
	int nparams;
	bool list_param;		/* one more parameter, LIST(VARCHAR), after params */
	duckdb_type ret;
};

/* Register the sink on con; its name goes to name (size len).  -EIO on failure. */
int sink__register(duckdb_connection con, const struct sink_spec *def, char *name, size_t len);

/* Run the query feeding a sink.  A failure (the sink's own errors included) is logged as
 * "path: cannot read ...", except when *cancel is set: -ECANCELED, silently. */
int sink__run(duckdb_connection con, const char *sql, const char *path, const volatile bool *cancel);

/* Is row i valid in a DuckDB validity mask (NULL mask: all valid)? */
static inline bool sink__valid(const uint64_t *mask, uint64_t i)
{
	return !mask || (mask[i >> 6] >> (i & 63)) & 1;
}

/* A fresh number, for names and for telling scans apart in per-thread caches. */
unsigned int sink__generation(void);

#endif
