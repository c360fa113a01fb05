/* `probex report FILE`: a terminal summary of a trace (processes, syscalls, io_uring,
 * page faults, scheduling, CPU stacks, drops) in 100 columns, or JSON. */
#ifndef PROBEX_REPORT_REPORT_H
#define PROBEX_REPORT_REPORT_H

#include <duckdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/progress.h"
#include "report/rtable.h"

#define REPORT_WIDTH 100

struct report_opts {
	const char *event_type;	/* the stacks section's event type (cpu_sample) */
	bool inverted;		/* stacks: callers of each function instead of callees */
	bool json;
	bool has_pid;
	uint32_t pid;		/* a process (tgid) or a thread */
	bool has_start, has_end;
	uint64_t start_ns, end_ns;	/* from the trace's first row */
	unsigned int top;	/* rows of the top-N tables */
	struct progress *progress;	/* NULL: none */
};

/* What the sections share: the connection, where `events` is the filtered view and
 * `trace` every row, and the output. */
struct report {
	duckdb_connection con;
	const struct report_opts *o;
	uint64_t t0;		/* first ts_ns of the trace: times are shown from it */
	uint64_t sample_freq_hz;
	FILE *out;
	struct json *j;		/* non-NULL: JSON output */
};

/* A section computes tables and emits them (text or JSON); 0 or negative errno after
 * a logged line. */
int report__processes(struct report *r);
int report__syscalls(struct report *r);
int report__io_uring(struct report *r);
int report__faults(struct report *r);
int report__sched(struct report *r);
int report__stacks(struct report *r);
int report__probes(struct report *r);

/* Rows of a small result as table t (columns BIGINT or VARCHAR, in t's order), emitted. */
int report__simple_table(struct report *r, struct rtable *t, const char *what, const char *sql);
/* Print or add a finished table, then free it. */
void report__emit(struct report *r, struct rtable *t);

/* Run SQL into res; logs "reading WHAT: error".  0 or -EIO. */
int report__query(struct report *r, const char *what, const char *sql, duckdb_result *res);

int report__run(const char *path, const struct report_opts *o, FILE *out);

#endif
