/* Scheduling facts per thread, read from a trace's sched_switch and off_cpu rows on first
 * use (the thread-state, critical-path and wall-clock queries need them; the rest of the
 * model does not): each thread's switches in and out, and its off-CPU intervals with
 * their state, waker and runnable part.  Read-only once built. */
#ifndef PROBEX_MODEL_SCHED_H
#define PROBEX_MODEL_SCHED_H

#include <duckdb.h>
#include <stdbool.h>
#include <stdint.h>

#include "trace/tracefile.h"

/* state of a switch in (the others are prev_state of a switch out). */
#define SCHED_IN INT32_MIN

struct sched_ev {
	uint64_t ts;
	uint32_t tid;
	int32_t state;		/* SCHED_IN, or prev_state of a switch out */
	uint32_t row;		/* file row: ties in ts keep the file's order */
};

struct sched_off {
	uint64_t ts, lat;
	int64_t runnable;	/* ns from the wakeup to running again; -1 unknown */
	uint32_t tid, waker_pid, waker_tgid;
	uint32_t row;		/* file row */
	uint32_t wstack;	/* index into wstack_json; 0 none */
	int32_t state;
};

struct sched {
	uint32_t ntids;
	uint32_t *tids;		/* ascending */
	uint64_t *ev_off, *off_off;	/* per tid: ev[ev_off[i] ..), off[off_off[i] ..) */
	uint64_t nev, noff;
	struct sched_ev *ev;	/* (tid, ts, row) order */
	struct sched_off *off;
	bool has_switches;	/* the trace has sched_switch rows */
	bool has_runnable;	/* the file has the runnable_ns column */
	bool has_waker;		/* the file has waker_pid */
	uint32_t root_pid;	/* probex.root_pid: the traced command; 0 unknown */
	bool no_stacks;		/* recorded with --stacks=none */
	uint32_t nwstacks;
	char **wstack_json;	/* waker stacks as JSON arrays; [0] unused */
	uint32_t *wstack_len;
};

/* Read tf's scheduling rows into s.  0 or a negative errno (logged). */
int sched__load(duckdb_connection con, const struct trace_file *tf, struct sched *s);
void sched__free(struct sched *s);

/* Index of tid in s->tids, or -1. */
int64_t sched__tid_index(const struct sched *s, uint32_t tid);
/* The off-CPU interval of tid starting at ts, or NULL. */
const struct sched_off *sched__off_at(const struct sched *s, int64_t ti, uint64_t ts);

/* prev_state bits as the kernel's: whether a switch out blocks, and how. */
bool sched__blocks(int32_t state);
bool sched__is_disk(int32_t state);
bool sched__is_dead(int32_t state);

#endif
