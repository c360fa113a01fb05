/* A second thread writes one row group while the next is filled.  The tables the writer
 * reads (names, stack lists) only grow; before a growth could move them, the filling side
 * waits for the writer (rare: when a table is at capacity). */
#ifndef PROBEX_FINALIZE_RGWRITER_H
#define PROBEX_FINALIZE_RGWRITER_H

#include <pthread.h>
#include <stdbool.h>

struct colbuf;
struct pq_writer;

struct rg_writer {
	struct pq_writer *w;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct colbuf *job;
	bool started, quit;
	int err;
};

/* With threaded false, or without a thread (pthread_create failed), every submit writes
 * in the caller.  A trace of one row group has nothing to overlap: a thread would only
 * cost its start and its own malloc arena's fresh pages (~1.5 ms on the test VM). */
void rg_writer__start(struct rg_writer *g, struct pq_writer *w, bool threaded);
/* Wait until no row group is being written; the writer's first error. */
int rg_writer__wait(struct rg_writer *g);
/* Hand c over (after the previous one is written); c must not change until the next wait. */
int rg_writer__submit(struct rg_writer *g, struct colbuf *c);
/* Wait, stop the thread; the first error. */
int rg_writer__stop(struct rg_writer *g);

#endif
