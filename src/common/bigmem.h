/* Large arrays (hundreds of MB of trace columns): 2 MiB-aligned allocations with a
 * transparent-huge-page hint, so filling them costs a few page faults per 2 MiB instead of
 * one per 4 KiB.  In a VM first-touch faults are expensive: they dominated loading a
 * 10M-row trace before this.  Free with free(). */
#ifndef PROBEX_COMMON_BIGMEM_H
#define PROBEX_COMMON_BIGMEM_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define BIGMEM_HUGE ((size_t)2 << 20)

static inline void *bigmem__alloc(size_t size)
{
	size_t rounded;
	void *p;

	if (size < BIGMEM_HUGE / 2)
		return malloc(size ? size : 1);
	rounded = (size + BIGMEM_HUGE - 1) & ~(BIGMEM_HUGE - 1);
	p = aligned_alloc(BIGMEM_HUGE, rounded);
	if (p)
		madvise(p, rounded, MADV_HUGEPAGE);	/* a hint: failure is fine */
	return p;
}

/* Grow an array allocated with bigmem__alloc (contents up to `used` bytes kept). */
static inline void *bigmem__grow(void *old, size_t used, size_t size)
{
	void *p = bigmem__alloc(size);

	if (p && old)
		memcpy(p, old, used);
	if (p)
		free(old);
	return p;
}

#endif
