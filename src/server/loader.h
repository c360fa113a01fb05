/* Loading a trace in the background after the server is up: pass 1 (rows, pairs,
 * summary, lifetimes) makes most endpoints answer; pass 2 (stacks) the rest. */
#ifndef PROBEX_SERVER_LOADER_H
#define PROBEX_SERVER_LOADER_H

#include <pthread.h>

#include "server/state.h"

/* Start loading st->tf into st; on failure the loader logs the problem, marks the state
 * failed and sends SIGUSR1 to `notify`. */
int loader__start(struct viewer_state *st, pthread_t notify, pthread_t *thread);
/* Ask a running load to stop, and wait for it. */
void loader__stop(struct viewer_state *st, pthread_t thread);
/* Free everything a load built in st (and the trace file), leaving st->db open. */
void loader__release(struct viewer_state *st);

#endif
