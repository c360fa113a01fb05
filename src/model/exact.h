/* The viewer's use of probex.exact (doc/exact-counts.md): the counts the kernel kept
 * beside the rows, per process and event type, which no ring-buffer drop loses.  They
 * cover the whole recording, so they apply only to a window holding the whole trace. */
#ifndef PROBEX_MODEL_EXACT_H
#define PROBEX_MODEL_EXACT_H

#include <duckdb.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"
#include "trace/tracefile.h"

#define EXACT_HIST 40	/* log2 latency buckets, as the kernel keeps them */

struct exact_entry {
	uint32_t tgid;		/* 0: events with no per-process entry */
	char *type;		/* the event_type of the rows it counts */
	uint64_t count, errors, total_ns;
	uint64_t hist[EXACT_HIST];
};

/* Entries in (event_type, tgid) order. */
struct exact_counts {
	bool present;		/* the file has probex.exact */
	uint64_t dropped;	/* records the ring buffer lost (probex.drops ringbuf_*) */
	uint64_t counted;	/* events the exact counts hold */
	size_t n;
	struct exact_entry *e;
};

struct exact_sum {
	uint64_t count, errors, total_ns;
	uint64_t hist[EXACT_HIST];
};

/* Read tf's probex.exact and drop counters into x (empty, not present, for a file
 * without them or with damaged ones: a warning).  0 or -ENOMEM. */
int exact_counts__load(duckdb_connection con, const struct trace_file *tf, struct exact_counts *x);
void exact_counts__free(struct exact_counts *x);

/* Whether the exact counts answer for w: a window holding the whole trace, and for a
 * pid, a process (tgid) no other pid of the trace belongs to (rows are per thread,
 * the counts per process). */
bool exact_counts__apply(const struct exact_counts *x, const struct model *m, const struct window *w);

/* The sums for type in w's scope (all processes, or w->pid's); false when none. */
bool exact_counts__sum(const struct exact_counts *x, const struct window *w, const char *type,
		       struct exact_sum *s);

#endif
