/* Printing a DuckDB result: an aligned table (numbers right-aligned), tab-separated
 * values, CSV (RFC 4180) or JSON (an array of objects; lists and structs as JSON). */
#ifndef PROBEX_QUERY_RESULT_H
#define PROBEX_QUERY_RESULT_H

#include <duckdb.h>
#include <stdbool.h>
#include <stdio.h>

enum result_fmt { RESULT_TABLE, RESULT_TSV, RESULT_CSV, RESULT_JSON };

/* Prints the result as it is fetched (it may be a streaming one).  0, -ENOMEM, or -EIO
 * when fetching failed (the message is duckdb_result_error). */
int result__print(duckdb_result *res, FILE *out, enum result_fmt fmt, bool header);

#endif
