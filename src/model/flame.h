/* A flame graph's data: the rows of one event type in a window, sampled to a bound,
 * folded by stack with their labels cleaned up as the 0.1 viewer API does. */
#ifndef PROBEX_MODEL_FLAME_H
#define PROBEX_MODEL_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

struct flame_stack {
	const char **frames;	/* root first */
	const uint32_t *lens;
	uint32_t nframes;
	uint64_t count;
};

struct flame {
	struct flame_stack *stacks;	/* one per stack id sampled, in id order */
	size_t n;
	uint64_t total;			/* the counts' sum */
	uint64_t in_range;		/* rows with labels of the type in the window */
	bool blocked;			/* counts are ns off-CPU (off_cpu rows with latency) */
	/* Where stacks point. */
	const char **frames;
	uint32_t *lens;
	char *text;
};

/* The flame graph of type code in w: at most max rows, a uniform sample fixed by seed;
 * each row counts 1, its stack_weight, or (off_cpu) its latency.  0 or -ENOMEM; free
 * with flame__free either way. */
int model__flame(const struct model *m, unsigned int code, const struct window *w, uint64_t seed,
		 uint64_t max, struct flame *out);
void flame__free(struct flame *f);

#endif
