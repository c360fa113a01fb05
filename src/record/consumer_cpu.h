/* The consumer's CPUs: away from the CPUs the traced threads keep busy.  The consumer is a
 * real-time thread: on a traced thread's CPU each of its wake-ups preempts that thread. */
#ifndef PROBEX_RECORD_CONSUMER_CPU_H
#define PROBEX_RECORD_CONSUMER_CPU_H

#include <sched.h>
#include <stdint.h>

struct consumer_cpu;

/* Within the calling thread's CPUs (its affinity now).  0 or -ENOMEM. */
int consumer_cpu__new(struct consumer_cpu **out);
void consumer_cpu__free(struct consumer_cpu *c);
/* Every consumer cycle: at the end of a window (~100 ms and enough records), the CPUs
 * to run on from its records.  1 when they changed (in *set), else 0. */
int consumer_cpu__repick(struct consumer_cpu *c, cpu_set_t *set);

/* The rule, for tests: of the CPUs in allowed, those where fewer than half an even
 * share of the n[] records were written (n has ncpu entries).  When that leaves none or
 * every allowed CPU is busy, or fewer than min records, all of allowed.  Returns how many
 * CPUs *out holds. */
int consumer_cpu__pick(const uint64_t *n, int ncpu, const cpu_set_t *allowed, uint64_t min,
		       cpu_set_t *out);

struct consumer_cpu {
	int ncpu;
	uint64_t *n;		/* records per CPU this window */
	uint64_t window_end_ns;
	cpu_set_t allowed, cur;
};

/* A record the kernel wrote on cpu (its header's). */
static inline void consumer_cpu__note(struct consumer_cpu *c, uint32_t cpu)
{
	if (c && cpu < (uint32_t)c->ncpu)
		c->n[cpu]++;
}

#endif
