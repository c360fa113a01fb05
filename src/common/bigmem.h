/* Large arrays (hundreds of MB of trace columns): malloc plus a transparent-huge-page
 * hint, so filling them costs a few hundred page faults instead of a hundred thousand
 * (first-touch faults dominated loading a 10M-row trace in a VM). */
#ifndef PROBEX_COMMON_BIGMEM_H
#define PROBEX_COMMON_BIGMEM_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

static inline void *bigmem__alloc(size_t size)
{
	const uintptr_t huge = 2u << 20;
	void *p = malloc(size ? size : 1);

	if (p && size >= 4 * huge) {
		uintptr_t start = ((uintptr_t)p + huge - 1) & ~(huge - 1);
		uintptr_t end = ((uintptr_t)p + size) & ~(huge - 1);

		if (end > start)
			madvise((void *)start, end - start, MADV_HUGEPAGE);	/* a hint: failure is fine */
	}
	return p;
}

#endif
