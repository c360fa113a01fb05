/* One trace, or many through a glob, opened in an in-memory DuckDB as two views:
 * `events` (the rows; with a `file` column when a glob was given) and `metadata`
 * (key, value: the Parquet key-value metadata as text; also `file` for a glob). */
#ifndef PROBEX_QUERY_TRACEDB_H
#define PROBEX_QUERY_TRACEDB_H

#include <duckdb.h>
#include <stdbool.h>

struct trace_db {
	duckdb_database db;
	duckdb_connection con;
	bool multi;		/* a glob: the views carry a `file` column */
	int nfiles;
};

/* Open ARG (a file, or a glob when it holds * ? or [) and create the views.  Every
 * failure is one logged line naming the file; negative errno. */
int trace_db__open(struct trace_db *t, const char *arg);
void trace_db__close(struct trace_db *t);

#endif
