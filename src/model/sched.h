/* Scheduling facts per thread, read from a trace's sched_switch and off_cpu rows on first
 * use (the thread-state, critical-path and wall-clock queries need them; the rest of the
 * model does not): each thread's switches in and out, and its off-CPU intervals with
 * their state, waker and runnable part.  Read-only once built. */
#ifndef PROBEX_MODEL_SCHED_H
#define PROBEX_MODEL_SCHED_H

#include <duckdb.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/intern.h"
#include "trace/tracefile.h"

/* state of a switch in (the others are prev_state of a switch out). */
#define SCHED_IN INT32_MIN

struct sched_off {
	uint64_t ts, lat;
	int64_t runnable;	/* ns from the wakeup to running again; -1 unknown */
	uint32_t tid, waker_pid, waker_tgid;
	uint32_t row;		/* file row */
	uint32_t wstack;	/* index into wstack_json; 0 none */
	int32_t state;
	uint32_t wname;		/* the waker's comm: waker_names.strs[wname - 1]; 0 none */
};

struct sched {
	uint32_t ntids;
	uint32_t *tids;		/* ascending */
	uint64_t *ev_off, *off_off;	/* per tid: ev_*[ev_off[i] ..), off[off_off[i] ..) */
	uint64_t nev, noff;
	/* Switches in (tid, ts, file row) order, as two columns: a search reads only ts. */
	uint64_t *ev_ts;
	int32_t *ev_state;	/* SCHED_IN, or prev_state of a switch out */
	struct sched_off *off;
	bool has_switches;	/* the trace has sched_switch rows */
	bool has_runnable;	/* the file has the runnable_ns column */
	bool has_waker;		/* the file has waker_pid */
	uint32_t root_pid;	/* probex.root_pid: the traced command; 0 unknown */
	bool no_stacks;		/* recorded with --stacks=none */
	uint32_t nwstacks;
	char **wstack_json;	/* waker stacks as JSON arrays; [0] unused */
	uint32_t *wstack_len;
	struct intern waker_names;	/* the waker_name column's values */
};

/* Read tf's scheduling rows into s.  0 or a negative errno (logged). */
int sched__load(duckdb_connection con, const struct trace_file *tf, struct sched *s);
void sched__free(struct sched *s);

/* Index of tid in s->tids, or -1. */
int64_t sched__tid_index(const struct sched *s, uint32_t tid);
/* The off-CPU interval of tid starting at ts, or NULL. */
const struct sched_off *sched__off_at(const struct sched *s, int64_t ti, uint64_t ts);

/* The waker's comm as recorded at the wakeup (a waker outside the traced processes has no
 * other name), or NULL (none, or a trace without waker_name). */
const char *sched__waker_name(const struct sched *s, const struct sched_off *o);

/* prev_state bits as the kernel's: whether a switch out blocks, and how. */
bool sched__blocks(int32_t state);
bool sched__is_disk(int32_t state);
bool sched__is_dead(int32_t state);

#endif
