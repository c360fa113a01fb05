/* Large arrays (hundreds of MB of trace columns, multi-MB symbol tables) backed by
 * transparent huge pages where the kernel allows them, so filling them costs one page
 * fault per 2 MiB instead of 512.  In a VM first-touch faults are expensive (~11 us for
 * 4 KiB on the test VM), but a huge page zeroes all of its 2 MiB however little is used:
 * huge pages pay off for what is filled, and are a loss for a capacity of which a short
 * trace touches a few KiB.
 *
 * Two forms of the one allocator: bigmem__alloc/grow give malloc-compatible blocks (free
 * with free()); struct bigmem_buf is a growable mapping that mremap moves without copying
 * (for tables that grow by doubling, e.g. kallsyms), in huge pages once past 2 MiB. */
#ifndef PROBEX_COMMON_BIGMEM_H
#define PROBEX_COMMON_BIGMEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define BIGMEM_HUGE ((size_t)2 << 20)

/* size bytes whose first `small` bytes keep 4 KiB pages and the rest take huge pages
 * (a block below 1 MiB, or within `small`, is plain malloc). */
static inline void *bigmem__alloc_huge_after(size_t size, size_t small)
{
	size_t rounded;
	void *p;

	if (size < BIGMEM_HUGE / 2 || size <= small)
		return malloc(size ? size : 1);
	rounded = (size + BIGMEM_HUGE - 1) & ~(BIGMEM_HUGE - 1);
	p = aligned_alloc(BIGMEM_HUGE, rounded);
	if (p)
		madvise((char *)p + small, rounded - small, MADV_HUGEPAGE);	/* a hint: failure is fine */
	return p;
}

static inline void *bigmem__alloc(size_t size)
{
	return bigmem__alloc_huge_after(size, 0);
}

/* The same for a capacity that may stay mostly unused (a run buffer sized for the
 * largest run): its first 2 MiB in 4 KiB pages, huge pages past them. */
static inline void *bigmem__alloc_sparse(size_t size)
{
	return bigmem__alloc_huge_after(size, BIGMEM_HUGE);
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

struct bigmem_buf {
	void *p;
	size_t cap;	/* bytes mapped */
};

/* Ensures room for size bytes; contents are kept, p may move. 0 or -ENOMEM. */
int bigmem_buf__reserve(struct bigmem_buf *b, size_t size);
void bigmem_buf__free(struct bigmem_buf *b);

#endif
