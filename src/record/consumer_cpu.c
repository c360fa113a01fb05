/* The consumer's CPUs (consumer_cpu.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/consumer_cpu.h"

/* Fewer records than this in a window: the consumer barely runs, leave it where it is. */
#define MIN_RECORDS 256
#define WINDOW_NS 100000000ull

int consumer_cpu__pick(const uint64_t *n, int ncpu, const cpu_set_t *allowed, uint64_t min,
		       cpu_set_t *out)
{
	uint64_t total = 0;
	int nallowed = 0, nfree = 0;

	for (int i = 0; i < ncpu; i++) {
		if (CPU_ISSET(i, allowed)) {
			total += n[i];
			nallowed++;
		}
	}
	*out = *allowed;
	if (!nallowed || total < min)
		return nallowed;
	CPU_ZERO(out);
	for (int i = 0; i < ncpu; i++) {
		/* Busy: at least half an even share of the records. */
		if (CPU_ISSET(i, allowed) && n[i] * 2 * (uint64_t)nallowed < total) {
			CPU_SET(i, out);
			nfree++;
		}
	}
	if (nfree)
		return nfree;
	/* Every CPU busy: the consumer competes wherever it runs; let the scheduler choose. */
	*out = *allowed;
	return nallowed;
}

int consumer_cpu__new(struct consumer_cpu **out)
{
	struct consumer_cpu *c = calloc(1, sizeof(*c));
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	if (!c)
		return -ENOMEM;
	c->ncpu = ncpu < 1 ? 1 : ncpu > CPU_SETSIZE ? CPU_SETSIZE : (int)ncpu;
	c->n = calloc((size_t)c->ncpu, sizeof(*c->n));
	if (!c->n) {
		free(c);
		return -ENOMEM;
	}
	if (sched_getaffinity(0, sizeof(c->allowed), &c->allowed)) {
		CPU_ZERO(&c->allowed);
		for (int i = 0; i < c->ncpu; i++)
			CPU_SET(i, &c->allowed);
	}
	c->cur = c->allowed;
	*out = c;
	return 0;
}

void consumer_cpu__free(struct consumer_cpu *c)
{
	if (!c)
		return;
	free(c->n);
	free(c);
}

int consumer_cpu__repick(struct consumer_cpu *c, cpu_set_t *set)
{
	struct timespec ts;
	uint64_t now, total = 0;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (now < c->window_end_ns)
		return 0;
	for (int i = 0; i < c->ncpu; i++)
		total += c->n[i];
	/* A quiet window says little about where the traced threads run: it goes on. */
	if (total < MIN_RECORDS)
		return 0;
	c->window_end_ns = now + WINDOW_NS;
	consumer_cpu__pick(c->n, c->ncpu, &c->allowed, MIN_RECORDS, set);
	memset(c->n, 0, (size_t)c->ncpu * sizeof(*c->n));
	if (CPU_EQUAL(set, &c->cur))
		return 0;
	c->cur = *set;
	return 1;
}
