/* The wall-clock flame graph of threads over a window: on-CPU samples, each worth its
 * sampling period (1e9 / sample_freq_hz ns, times its stack_weight), and off-CPU time by
 * blocking stack, split into its blocked and (when known) runnable parts, all in ns. */
#ifndef PROBEX_MODEL_WALLFLAME_H
#define PROBEX_MODEL_WALLFLAME_H

#include <stddef.h>
#include <stdint.h>

#include "model/states.h"

struct wall_stack {
	uint32_t stack;			/* stack id (model.h) */
	enum thread_state state;	/* TS_RUNNING for on-CPU time */
	uint64_t ns;
};

struct wall {
	struct wall_stack *v;		/* by (stack, state) */
	size_t n;
	uint64_t on_cpu_ns, off_cpu_ns;
};

/* Threads tids[0..n) over [start, end].  0 or -ENOMEM. */
int wallflame__build(const struct model *m, const struct sched *s, const uint32_t *tids, size_t n,
		     uint64_t start, uint64_t end, struct wall *out);
void wall__free(struct wall *w);

#endif
