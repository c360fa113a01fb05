/* The growable form of the huge-page allocator (see bigmem.h). */
#include <errno.h>
#include <sys/mman.h>

#include "common/bigmem.h"

#define BIGMEM_BUF_FIRST ((size_t)64 << 10)

int bigmem_buf__reserve(struct bigmem_buf *b, size_t size)
{
	size_t cap = b->cap ? b->cap : BIGMEM_BUF_FIRST;
	void *p;

	if (size <= b->cap)
		return 0;
	while (cap < size)
		cap *= 2;
	/* mremap moves page tables, not data: growing never copies or refaults. */
	if (b->p)
		p = mremap(b->p, b->cap, cap, MREMAP_MAYMOVE);
	else
		p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	/* Advisory: without THP support this fails and 4 KiB pages are used.  A table that
	 * stays small (the kernel symbols of a short trace's stacks) is not worth a huge
	 * page; pages already touched stay small. */
	if (cap > BIGMEM_HUGE)
		madvise(p, cap, MADV_HUGEPAGE);
	b->p = p;
	b->cap = cap;
	return 0;
}

void bigmem_buf__free(struct bigmem_buf *b)
{
	if (b->p)
		munmap(b->p, b->cap);
	b->p = NULL;
	b->cap = 0;
}
