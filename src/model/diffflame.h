/* A differential flame graph's data: one event type's folded stacks in a window of each of
 * two traces (model__flame on each), matched by their frames. */
#ifndef PROBEX_MODEL_DIFFFLAME_H
#define PROBEX_MODEL_DIFFFLAME_H

#include "model/flame.h"

struct diff_stack {
	const char **frames;	/* root first */
	const uint32_t *lens;
	uint32_t nframes;
	uint64_t base;		/* weight in the base trace */
	uint64_t weight;	/* weight in the new trace */
};

struct diff_flame {
	struct diff_stack *stacks;	/* ordered by frames */
	size_t n;
	struct flame base, new;		/* the two sides (totals, in_range, blocked) */
};

/* The side of a diff: a model, its code for the event type (-1: the trace has none of
 * them, an empty side) and its window. */
struct diff_side {
	const struct model *m;
	int code;
	const struct window *w;
};

/* Both sides' flame graphs (at most max sampled rows each, fixed by seed) and their stacks
 * matched.  0 or -ENOMEM; free with diff_flame__free either way. */
int model__diff_flame(const struct diff_side *base, const struct diff_side *new, uint64_t seed,
		      uint64_t max, struct diff_flame *out);
void diff_flame__free(struct diff_flame *d);

#endif
