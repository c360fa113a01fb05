/* The critical path of a thread over a window, after Perfetto's thread_executing_span:
 * while the thread runs (or waits for a CPU) the path is the thread; while it is blocked,
 * the path is what its waker did from the block to the wakeup, recursively.  A block with
 * no waker (an interrupt, a timer) or one woken by a thread outside the trace ends its
 * chain there, as a blocked segment naming that waker.  Segments tile the window. */
#ifndef PROBEX_MODEL_CRITPATH_H
#define PROBEX_MODEL_CRITPATH_H

#include "model/states.h"

struct cpseg {
	uint64_t start, end;
	uint32_t tid;
	enum thread_state state;
	uint64_t block_ts;		/* a blocked segment's switch out */
	const struct sched_off *off;	/* its off_cpu row (waker, stacks), or NULL */
};

struct cpsegs {
	struct cpseg *v;
	size_t n, cap;
};

/* tid's critical path over [start, end] (clipped to its life) into out.  0 or -ENOMEM. */
int critpath__build(const struct model *m, const struct sched *s, uint32_t tid, uint64_t start,
		    uint64_t end, struct cpsegs *out);
void cpsegs__free(struct cpsegs *c);

/* The stack of a segment: a running one's most frequent CPU-sample stack, a blocked one's
 * blocking stack; STACK_NULL when none (m's stacks must be loaded). */
uint32_t critpath__stack(const struct model *m, const struct cpseg *g);

/* The traced command's main thread: the root pid's, or the first thread seen. */
uint32_t critpath__default_tid(const struct model *m, uint32_t root_pid);

#endif
