/* A trace as a DuckDB view with every column of trace_schema[]: the columns a file lacks
 * (a 0.1 file has none of probex's own) read as NULL of their type, and latency_ns
 * from enter/exit pairs, so one query serves files of both formats. */
#ifndef PROBEX_TRACE_VIEW_H
#define PROBEX_TRACE_VIEW_H

#include <duckdb.h>

#include "trace/tracefile.h"

/* CREATE VIEW name over tf (opened with trace_file__open).  0 or a negative errno after
 * one logged line naming the file. */
int trace_view__create(duckdb_connection con, const struct trace_file *tf, const char *name);

#endif
