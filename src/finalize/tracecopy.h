/* A trace file rewritten from a DuckDB query through probex's own Parquet writer.
 *
 * DuckDB's COPY would write every column OPTIONAL, name the list child "element" and
 * carry no Arrow schema of its own, so a rewritten trace (probex resymbolize) would not
 * have a recording's schema.  Here the rows stream out of DuckDB chunk by chunk into
 * trace_schema's columns and go to pq_writer, which writes them as finalize does. */
#ifndef PROBEX_FINALIZE_TRACECOPY_H
#define PROBEX_FINALIZE_TRACECOPY_H

#include <duckdb.h>

#include "parquet/parquet.h"
#include "trace/schema.h"

/* Write path from "SELECT <trace_schema columns> <from>": from names the input as "e"
 * (and anything joined), and orders the rows.  exprs[col] replaces a column's value
 * (NULL: e's own column, or NULL when e has none).  kv as for pq_writer__close. */
int trace_copy__write(duckdb_connection con, const char *from, const char *const exprs[TC__COUNT],
		      const char *path, const struct pq_kv *kv, int nkv);

#endif
