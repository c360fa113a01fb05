#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/bigmem.h"
#include "common/sparse32.h"

int sparse32__build(struct sparse32 *s, const uint32_t *v, const uint8_t *flags, uint8_t mask,
		    uint64_t n)
{
	uint64_t words = (n + 63) / 64, blocks = (n >> SPARSE32_BLOCK_SHIFT) + 1, k = 0;

	memset(s, 0, sizeof(*s));
	s->n = n;
	for (uint64_t i = 0; i < n; i++)
		s->nset += (flags[i] & mask) != 0;
	s->bits = calloc(words + 1, sizeof(*s->bits));
	s->rank = malloc((blocks + 1) * sizeof(*s->rank));
	s->vals = bigmem__alloc((s->nset + 1) * sizeof(*s->vals));
	if (!s->bits || !s->rank || !s->vals || s->nset > UINT32_MAX) {
		sparse32__free(s);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < n; i++) {
		if (!(i & ((1ull << SPARSE32_BLOCK_SHIFT) - 1)))
			s->rank[i >> SPARSE32_BLOCK_SHIFT] = (uint32_t)k;
		if (!(flags[i] & mask))
			continue;
		s->bits[i >> 6] |= 1ull << (i & 63);
		s->vals[k++] = v[i];
	}
	return 0;
}

void sparse32__free(struct sparse32 *s)
{
	free(s->bits);
	free(s->rank);
	free(s->vals);
	memset(s, 0, sizeof(*s));
}
