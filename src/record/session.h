/* What the session (session.c) and its consumer thread (consumer.c) share. */
#ifndef PROBEX_RECORD_SESSION_H
#define PROBEX_RECORD_SESSION_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "record/session_info.h"

struct perf_event_header;

struct session {
	const struct record_opts *opts;
	const struct priv_target *priv;	/* the spool is the user's: created and removed as them */
	struct session_info info;
	struct spool_writer *spool;
	struct probes *probes;
	struct sbfilter *sbf;		/* side-band records of traced processes only */
	pthread_t consumer;
	bool consumer_started;
	atomic_bool stop_consumer;
	atomic_int consumer_err;
	atomic_bool full;		/* the spool reached --max-size: nothing more is written */
	int wake_fd;			/* eventfd: the consumer failed or the spool is full */
	int sfd;			/* signalfd: SIGCHLD and stop requests */
	int guard_fd;			/* the socket to the guardian */
	uint64_t records;		/* written by the consumer only */
	char *pack;			/* the consumer's: a stack-copy record, packed */
	struct lossless *lossless;	/* --lossless, else NULL */
	struct pyrec *py;		/* CPython processes: the consumer's once it runs */
	struct unwload *unw;		/* the in-kernel walk's tables, else NULL */
	struct consumer_cpu *ccpu;	/* the consumer's: where traced threads run */
};

/* probes_opts callbacks (ctx is the session): a ring-buffer record, a side-band record. */
int session__on_record(void *ctx, const void *data, uint32_t size);
void session__on_sideband(void *ctx, const struct perf_event_header *ev);
/* The consumer thread (arg is the session): until stop_consumer, then a final drain. */
void *session__consumer_main(void *arg);

#endif
