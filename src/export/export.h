/* `probex export`: a trace's stacks and timeline in other tools' formats.  Folded stacks
 * (FlameGraph, inferno), speedscope JSON and pprof protobuf aggregate the stacks of one
 * event type, weighted by stack_weight; Chrome Trace Event JSON (Perfetto,
 * chrome://tracing) lays out threads, syscalls, off-CPU time and CPU samples. */
#ifndef PROBEX_EXPORT_EXPORT_H
#define PROBEX_EXPORT_EXPORT_H

#include <duckdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/intern.h"
#include "common/progress.h"

enum export_fmt { EXPORT_FOLDED, EXPORT_SPEEDSCOPE, EXPORT_CHROME, EXPORT_PPROF, EXPORT__COUNT };

extern const char *const export_fmt_names[EXPORT__COUNT];

struct export_opts {
	enum export_fmt fmt;
	const char *event_type;	/* a name of event_type_names (stack formats) */
	bool has_pid;
	uint32_t pid;		/* a process (tgid) or a thread (pid) */
	struct progress *progress;	/* NULL: none */
};

/* Every thread's scheduler rows as q(tgid, pid, process_name, ts_ns, prev_state, is_out,
 * is_in, nt, nin): a switch-out (is_out) is off CPU until the thread's next row, nt, when
 * that row is its switch-in (nin).  extra is appended to the rows' WHERE clause.  Shared
 * by the Chrome export's off-CPU slices and the report's per-thread table. */
#define SWITCH_INTERVALS_SQL(extra)                                                                \
	"WITH s AS (SELECT tgid, pid, process_name, ts_ns, prev_state, (prev_pid = pid) AS is_out, " \
	"(next_pid = pid AND prev_pid <> pid) AS is_in FROM events WHERE event_type = 'sched_switch' " \
	"AND (prev_pid = pid OR next_pid = pid)" extra "), q AS (SELECT *, lead(ts_ns) OVER w AS nt, " \
	"lead(is_in) OVER w AS nin FROM s WINDOW w AS (PARTITION BY pid ORDER BY ts_ns)) "

/* The WHERE clause for the options' pid, into buf: "" or " AND (pid = P OR tgid = P)". */
void export__pid_clause(const struct export_opts *o, char *buf, size_t size);

/* Aggregated stacks: frame names interned, a stack root first; the process name is the
 * root frame of each stack, as perf script's folded output does. */
struct ex_frame {
	char *name;		/* in names */
	bool kernel;		/* a kernel frame (after the '[kernel]' marker) */
	bool process;		/* the root frame standing for the process */
};

struct ex_stack {
	uint32_t *frames;	/* root first */
	uint32_t n;
	uint64_t weight;
	uint64_t events;	/* rows it stands for (weight, unless by_ns) */
};

struct ex_profile {
	struct ex_frame *frames;
	uint32_t nframes, frames_cap;
	struct ex_stack *stacks;
	uint64_t nstacks, stacks_cap;
	uint64_t total;		/* sum of weights */
	uint64_t start_ns, end_ns;	/* first and last row of the trace */
	uint64_t sample_freq_hz;
	const char *event_type;
	bool by_ns;		/* off_cpu: weights are blocked ns (latency_ns), not events */
	struct intern names;	/* kind byte + name → frame id */
};

int ex_profile__load(struct ex_profile *p, duckdb_connection con, const struct export_opts *o,
		     uint64_t sample_freq_hz);
void ex_profile__free(struct ex_profile *p);

int export__folded(const struct ex_profile *p, FILE *out);
int export__speedscope(const struct ex_profile *p, FILE *out, const char *name);
int export__pprof(const struct ex_profile *p, FILE *out);
int export__chrome(duckdb_connection con, const struct export_opts *o, FILE *out, uint64_t start_ns);

/* Open PATH, validate it as a probex trace and write the export to out.  0, or a
 * negative errno after one logged line. */
int export__run(const char *path, const struct export_opts *o, FILE *out);

#endif
