/* Thread states: a thread's life tiled into running, runnable, sleeping, disk and unknown
 * spans, from its switches in and out and its off-CPU intervals (model/sched.h).  A
 * blocked interval's last runnable_ns, when the trace has it, is runnable (woken, waiting
 * for a CPU); without it the whole interval is blocked and the runnable time unknown. */
#ifndef PROBEX_MODEL_STATES_H
#define PROBEX_MODEL_STATES_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "model/sched.h"

enum thread_state { TS_RUNNING, TS_RUNNABLE, TS_SLEEPING, TS_DISK, TS_UNKNOWN, TS__COUNT };

extern const char *const thread_state_names[TS__COUNT];

struct tspan {
	uint64_t start, end;
	uint64_t block_ts;		/* sleeping/disk/runnable after a block: its switch out */
	const struct sched_off *off;	/* that interval's off_cpu row, or NULL */
	uint32_t merged;		/* spans merged into this one (0: a span of its own) */
	uint8_t state;			/* enum thread_state */
};

struct tspans {
	struct tspan *v;
	size_t n, cap;
};

/* The life of tid: first to last ts of its rows and switches.  false when unseen.  m may
 * be NULL (its switches alone then; states__spans passes m on to it). */
bool states__life(const struct model *m, const struct sched *s, uint32_t tid, uint64_t *start,
		  uint64_t *end);
/* tid's spans within [start, end] (clipped, in order, tiling its life there); appended
 * to out.  0 or -ENOMEM. */
int states__spans(const struct model *m, const struct sched *s, uint32_t tid, uint64_t start,
		  uint64_t end, struct tspans *out);
/* The same, for walks that go forward in time over a thread many times: *hint (start
 * at UINT64_MAX) keeps where the last one started. */
int states__spans_hint(const struct model *m, const struct sched *s, uint32_t tid, uint64_t start,
		       uint64_t end, struct tspans *out, uint64_t *hint);
/* The same for a life [l0, l1] the caller knows (from rows the model does not hold);
 * hint as above, or NULL. */
int states__spans_life(const struct sched *s, uint32_t tid, uint64_t l0, uint64_t l1,
		       uint64_t start, uint64_t end, struct tspans *out, uint64_t *hint);
/* Spans narrower than (end - start) / max merge into one of their dominant state. */
int states__bound(struct tspans *sp, uint64_t start, uint64_t end, uint64_t max);
void tspans__free(struct tspans *sp);

/* The model row of the syscall enter tid was in at ts (blocked there), or -1. */
int64_t states__syscall_at(const struct model *m, uint32_t tid, uint64_t ts);
/* The syscall name of an enter row (without syscall_ and _enter), its length in *len. */
const char *states__syscall_name(const struct model *m, uint64_t rn, size_t *len);
/* The model row of tid's off_cpu row at ts (its blocking stack), or -1. */
int64_t states__off_row(const struct model *m, uint32_t tid, uint64_t ts);

#endif
