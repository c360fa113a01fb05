/* The interactive SQL prompt of `probex sql`: libedit line editing and history
 * (~/.probex_history), statements over several lines until a ';'. */
#ifndef PROBEX_QUERY_REPL_H
#define PROBEX_QUERY_REPL_H

#include <duckdb.h>

#include "query/result.h"

/* Run statements until end of input or .quit; always returns 0 (errors are shown). */
int repl__run(duckdb_connection con, enum result_fmt fmt, const char *banner);

/* Run one SQL text and print the last statement's result.  0, or 1 after printing
 * DuckDB's error as "probex: error: [LABEL: ]..." (a corrupt file fails while the query
 * reads it: the label names the trace then). */
int repl__exec(duckdb_connection con, const char *sql, enum result_fmt fmt, bool header,
	       const char *label);

#endif
