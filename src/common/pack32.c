#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/bigmem.h"
#include "common/pack32.h"

int pack32__build(struct pack32 *p, const uint32_t *v, uint64_t n)
{
	uint64_t nblocks = (n + PACK32_BLOCK - 1) >> PACK32_SHIFT, slot = 0;

	memset(p, 0, sizeof(*p));
	p->n = n;
	p->base = malloc((nblocks + 1) * sizeof(*p->base));
	p->wide = malloc((nblocks + 1) * sizeof(*p->wide));
	p->lo = bigmem__alloc((n + 1) * sizeof(*p->lo));
	if (!p->base || !p->wide || !p->lo)
		goto nomem;
	for (uint64_t b = 0; b < nblocks; b++) {
		uint64_t lo = b << PACK32_SHIFT, hi = lo + PACK32_BLOCK < n ? lo + PACK32_BLOCK : n;
		uint32_t min = UINT32_MAX, max = 0;

		for (uint64_t i = lo; i < hi; i++) {
			min = v[i] < min ? v[i] : min;
			max = v[i] > max ? v[i] : max;
		}
		p->base[b] = min;
		p->wide[b] = max - min > UINT16_MAX ? (uint32_t)p->nwide++ : PACK32_NARROW;
		for (uint64_t i = lo; i < hi; i++)
			p->lo[i] = (uint16_t)(v[i] - min);
	}
	p->hi = bigmem__alloc((p->nwide * PACK32_BLOCK + 1) * sizeof(*p->hi));
	if (!p->hi)
		goto nomem;
	for (uint64_t b = 0; b < nblocks; b++) {
		uint64_t lo = b << PACK32_SHIFT, hi = lo + PACK32_BLOCK < n ? lo + PACK32_BLOCK : n;

		if (p->wide[b] == PACK32_NARROW)
			continue;
		for (uint64_t i = lo; i < hi; i++)
			p->hi[(slot << PACK32_SHIFT) | (i - lo)] = (uint16_t)((v[i] - p->base[b]) >> 16);
		slot++;
	}
	return 0;
nomem:
	pack32__free(p);
	return -ENOMEM;
}

void pack32__free(struct pack32 *p)
{
	free(p->base);
	free(p->wide);
	free(p->lo);
	free(p->hi);
	memset(p, 0, sizeof(*p));
}
