/* `probex report FILE`: a terminal summary of a trace (processes, syscalls, io_uring,
 * page faults, scheduling, CPU stacks, drops) in 100 columns, or JSON. */
#ifndef PROBEX_REPORT_REPORT_H
#define PROBEX_REPORT_REPORT_H

#include <duckdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/progress.h"
#include "common/strbuf.h"
#include "export/export.h"
#include "report/rtable.h"
#include "trace/tracefile.h"

#define REPORT_WIDTH 100

struct report_opts {
	const char *event_type;	/* the stacks section's event type (cpu_sample) */
	bool inverted;		/* stacks: callers of each function instead of callees */
	bool json;
	bool has_pid;
	uint32_t pid;		/* a process (tgid) or a thread */
	const char *comm;	/* NULL, or only the rows of threads of that name */
	bool has_start, has_end;
	uint64_t start_ns, end_ns;	/* from the trace's first row */
	unsigned int top;	/* rows of the top-N tables */
	bool critical_path;	/* the critical path of tid (default: the command's) instead */
	bool has_tid;
	uint32_t tid;
	struct progress *progress;	/* NULL: none */
};

/* What the sections share: the connection, where `events` is the filtered view and
 * `trace` every row, and the output. */
struct report {
	duckdb_connection con;
	const struct trace_file *tf;
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
int report__threads(struct report *r);
int report__probes(struct report *r);
int report__files(struct report *r);
/* The sections above, in report__run's progress phases. */
#define REPORT_SECTIONS 9
/* The window of `events` in ts_ns. */
void report__window(const struct report *r, uint64_t *start, uint64_t *end);

/* Create the views over the opened trace: `trace` (every row) and `events` (the rows
 * r->o's filters keep); sets r->t0.  0 or negative errno after a logged line. */
int report__views(struct report *r, const struct trace_file *tf);

/* The syscalls section's query (latency__table's shape) into sql. */
void report__syscalls_sql(struct strbuf *sql);
/* The syscalls' exact counts (name, calls, errors, total_ns) from the `exact` view. */
#define REPORT_SYSCALLS_EXACT_SQL \
	"SELECT regexp_extract(event_type, '^syscall_(.*)_exit$', 1), sum(count)::UBIGINT, " \
	"sum(errors)::UBIGINT, sum(total_ns)::UBIGINT FROM exact WHERE event_type LIKE " \
	"'syscall\\_%\\_exit' ESCAPE '\\' GROUP BY 1"

/* The processes section's query; one %llu: the time origin (t0).  Columns: tgid, parent
 * tgid (NULL: a root), name, start, lifetime (NULL: no exit seen), exit code, signal,
 * threads; ordered by start. */
extern const char *const report_procs_sql;

/* A function's weight in a profile: self (leaf), total (anywhere in a stack, once per
 * stack). */
struct fstat {
	uint32_t id;		/* frame id of the profile */
	uint64_t self, total;
	uint64_t seen;		/* last stack (index + 1) counted in total */
};

/* One fstat per frame of p, indexed by frame id; NULL when out of memory. */
struct fstat *report__function_stats(const struct ex_profile *p);

/* Rows of a small result as table t (columns BIGINT or VARCHAR, in t's order), emitted. */
int report__simple_table(struct report *r, struct rtable *t, const char *what, const char *sql);
/* Print or add a finished table, then free it. */
void report__emit(struct report *r, struct rtable *t);

/* Run SQL into res; logs "reading WHAT: error".  0 or -EIO. */
int report__query(struct report *r, const char *what, const char *sql, duckdb_result *res);

int report__run(const char *path, const struct report_opts *o, FILE *out);
int report__critical_path(const char *path, const struct report_opts *o, FILE *out);

#endif
