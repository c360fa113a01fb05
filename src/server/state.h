/* Everything the server shares between request threads: the loaded trace (model and
 * derived indexes), its DuckDB database, and how far loading has got. */
#ifndef PROBEX_SERVER_STATE_H
#define PROBEX_SERVER_STATE_H

#include <duckdb.h>
#include <pthread.h>
#include <sys/types.h>
#include <stdbool.h>

#include "model/exact.h"
#include "model/model.h"
#include "model/ops.h"
#include "model/sched.h"
#include "trace/tracefile.h"

/* Parts of a loaded trace, ready at different times.  Requests wait for the parts they
 * need, so the UI's first calls (summary, lifetimes) answer long before stacks are read. */
enum load_part {
	READY_SUMMARY = 16,	/* the summary: rows read, not yet sorted */
	READY_ROWS = 1,		/* sorted rows, lifetimes (and the summary) */
	READY_OPS = 2,		/* enter/exit pairs and their indexes */
	READY_STACKS = 8,	/* stacks (the second pass over the file) */
	READY_NAMES = 32,	/* process names and lifetimes (a --base trace's come last) */
};

struct viewer_state {
	struct trace_file tf;
	duckdb_database db;
	struct model m;
	struct ops ops;
	struct exact_counts exact;	/* probex.exact, read before the rows */
	char *summary_json;
	size_t summary_len;
	char *lifetimes_json;	/* or the query's error (a process_exit without exit_code) */
	size_t lifetimes_len;
	char *lifetimes_error;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int ready;	/* enum load_part bits */
	bool failed;
	char load_error[512];
	volatile bool stopping;

	/* Scheduling rows by thread, read on the first request that needs them (see
	 * ep_states.c): sched_read is 0 until then, 1 once read, or the negative errno. */
	pthread_mutex_t sched_lock;
	struct sched sched;
	int sched_read;

	struct conn_ctx *idle;	/* pooled DuckDB connections (see conn.c) */
	struct viewer_state *base;	/* --base: the trace compared with this one, or NULL */
	/* A --base trace: the viewed trace.  In compare mode what the compare view's first
	 * answers do not need (both traces' pairs, the base's names and lifetimes) waits
	 * until both traces have their stacks, or until a request waits for it (wanted). */
	struct viewer_state *first;
	bool wanted;
	pid_t low_tid;		/* the loader's thread while it runs at the lowest priority */
	unsigned int running;	/* handlers computing now (see state__enter) */
};

/* At most this many requests compute at once; the rest queue.  Two cores gain nothing
 * from more, and it bounds the working memory many concurrent clients could claim. */
#define STATE_MAX_RUNNING 4

void state__enter(struct viewer_state *st);
void state__leave(struct viewer_state *st);

/* Wait until the parts in `need` are ready (or loading failed, or the server stops).
 * Returns true when they are. */
bool state__wait(struct viewer_state *st, unsigned int need);
void state__set_ready(struct viewer_state *st, unsigned int parts);
void state__set_failed(struct viewer_state *st, const char *error);

#endif
