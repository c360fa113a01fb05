/* Everything the server shares between request threads: the loaded trace (model and
 * derived indexes), its DuckDB database, and how far loading has got. */
#ifndef PROBEX_VIEWER_STATE_H
#define PROBEX_VIEWER_STATE_H

#include <duckdb.h>
#include <pthread.h>
#include <stdbool.h>

#include "trace/tracefile.h"
#include "viewer/model.h"
#include "viewer/ops.h"

/* Loading stages, in order.  Requests wait for the stage they need. */
enum load_stage {
	STAGE_STARTING,
	STAGE_ROWS,	/* rows, pairs, summary, lifetimes and the ev table: most endpoints */
	STAGE_STACKS,	/* stacks and the fl table: flame graphs, event lists, IO samples */
	STAGE_FAILED,
};

struct viewer_state {
	struct trace_file tf;
	duckdb_database db;
	struct model m;
	struct ops ops;
	char *summary_json;
	size_t summary_len;
	char *lifetimes_json;	/* or the error the reference would give */
	size_t lifetimes_len;
	char *lifetimes_error;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	enum load_stage stage;
	char load_error[512];
	volatile bool stopping;

	struct conn_ctx *idle;	/* pooled DuckDB connections (see conn.c) */
};

/* Wait until the load reached `need` (or failed, or the server stops).  Returns true
 * when the stage is reached. */
bool state__wait(struct viewer_state *st, enum load_stage need);
void state__set_stage(struct viewer_state *st, enum load_stage stage, const char *error);

#endif
