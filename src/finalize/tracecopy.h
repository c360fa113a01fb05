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

/* New user labels by stack_id (probex resymbolize): for stack_id i < n, labels[i] and
 * modules[i] are the user part of stack_trace and stack_modules, items separated by
 * TRACE_COPY_SEP ("[user]" and its "" first); the kernel part ("[kernel]" on) is kept
 * as the input has it.  labels[i] NULL: the row keeps its lists. */
struct trace_copy_relabel {
	uint32_t n;
	char **labels, **modules;
};
#define TRACE_COPY_SEP '\x1f'

/* Write path from the rows of "SELECT <trace_schema columns> <from>" in their order:
 * from names the input as "e"; a column e lacks is NULL.  relabel: NULL, or new user
 * stacks.  kv as for pq_writer__close. */
int trace_copy__write(duckdb_connection con, const char *from,
		      const struct trace_copy_relabel *relabel, const char *path,
		      const struct pq_kv *kv, int nkv);

#endif
