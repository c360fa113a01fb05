/* Small DuckDB helpers shared by the writer, the query command and the viewer. */
#ifndef PROBEX_TRACE_DUCK_H
#define PROBEX_TRACE_DUCK_H

#include <duckdb.h>
#include <stdbool.h>
#include <stddef.h>

/* In-memory database with a connection; threads = 0 keeps DuckDB's default. */
int duck__open_memory(duckdb_database *db, duckdb_connection *con, int threads);

/* Open an in-memory database and expose a Parquet file as view NAME. The path is
 * embedded as an escaped SQL string literal (DuckDB cannot bind parameters in DDL). */
int duck__open_file_view(const char *path, const char *name, duckdb_database *db,
			 duckdb_connection *con);

/* Run a statement that returns nothing; logs the error; -EIO on failure. */
int duck__exec(duckdb_connection con, const char *sql);

/* Run one statement as a streaming result (fetched with duckdb_fetch_chunk, never held
 * whole in memory).  0, or -EIO with DuckDB's message logged as "what: message". */
int duck__stream(duckdb_connection con, const char *sql, const char *what, duckdb_result *res);

/* Append s as a single-quoted SQL literal ('' for '), NUL-terminated; -ENOSPC if short. */
int duck__quote(char *dst, size_t size, const char *s);

#endif
