/* Off-CPU rows joined, while the records are indexed, with the stacks of their blocking
 * sched_switch and of their waker.  The kernel sends them in that order for one thread:
 * the switch that blocks it (with its stack), the waker's record at the wakeup, then the
 * off_cpu record when it runs again, all three naming the same block time.  A thread has
 * at most one block pending, so one entry per thread id holds what is needed: memory grows
 * with the distinct thread ids (at most pid_max), never with the events, and only the
 * interned stack ids are kept, not the records. */
#ifndef PROBEX_FINALIZE_OFFJOIN_H
#define PROBEX_FINALIZE_OFFJOIN_H

#include <stdint.h>

struct offjoin;

/* Stack ids of a row: user, kernel (-1 when absent). */
struct offjoin_stacks {
	int32_t u, k;
};

struct offjoin *offjoin__new(void);
void offjoin__free(struct offjoin *j);
/* Thread tid blocked at ts, its switch (or its end, for a long interval) having taken
 * stacks s. */
int offjoin__block(struct offjoin *j, uint32_t tid, uint64_t ts, struct offjoin_stacks s);
/* Thread wakee, blocked since off_ts, was woken by a task whose stacks are s. */
int offjoin__wake(struct offjoin *j, uint32_t wakee, uint64_t off_ts, struct offjoin_stacks s);
/* The off_cpu row of tid blocked since ts: each of *own's stacks that is absent (the
 * record's own) becomes its switch's, when that switch had any; *waker its waker's, or
 * stays as it is. */
void offjoin__offcpu(const struct offjoin *j, uint32_t tid, uint64_t ts, struct offjoin_stacks *own,
		     struct offjoin_stacks *waker);

#endif
