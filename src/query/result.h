/* Printing a DuckDB result: an aligned table (numbers right-aligned), tab-separated
 * values, CSV (RFC 4180) or JSON (an array of objects; lists and structs as JSON). */
#ifndef PROBEX_QUERY_RESULT_H
#define PROBEX_QUERY_RESULT_H

#include <duckdb.h>
#include <stdbool.h>
#include <stdio.h>

enum result_fmt { RESULT_TABLE, RESULT_TSV, RESULT_CSV, RESULT_JSON };

/* 0, or -ENOMEM. */
int result__print(duckdb_result *res, FILE *out, enum result_fmt fmt, bool header);

#endif
