/* Pooled DuckDB connections for request threads, each with the API's statements prepared
 * on first use.  Every request-time query is one of these constant statements with bound
 * parameters: no SQL is ever built from request text. */
#ifndef PROBEX_SERVER_CONN_H
#define PROBEX_SERVER_CONN_H

#include <duckdb.h>
#include <stddef.h>

#include "server/state.h"

enum stmt_id {
	Q_PAYLOAD,	/* PAYLOAD_BATCH file row numbers */
	Q_PAYLOAD_BIG,	/* PAYLOAD_BATCH_BIG of them, for pages of more rows */
	Q_PATH_FILENAME,	/* event_list search: rows in a window whose filename holds a text */
	Q_PATH_FD_PATH,		/* the same for fd_path (files without the column fail to prepare) */
	Q__COUNT,
};

/* Rows fetched by one Q_PAYLOAD(_BIG) execution (unused slots repeat a bound row).  A
 * query costs about the same for 128 or 2048 rows: the big one keeps a 10 000-row page
 * to five queries, the small one keeps 50-row pages cheap. */
#define PAYLOAD_BATCH 128
#define PAYLOAD_BATCH_BIG 2048

struct conn_ctx {
	duckdb_connection con;
	duckdb_prepared_statement stmt[Q__COUNT];
	struct conn_ctx *next;
};

struct conn_ctx *conn__get(struct viewer_state *st);
void conn__put(struct viewer_state *st, struct conn_ctx *c);
void conn__free_all(struct viewer_state *st);

/* The statement, prepared on first use; NULL with err filled on failure. */
duckdb_prepared_statement conn__stmt(struct conn_ctx *c, enum stmt_id id, char *err, size_t len);
/* Execute a bound statement; on failure fills err and returns -EIO. */
int conn__run(duckdb_prepared_statement s, duckdb_result *res, char *err, size_t len);

#endif
