#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/bigmem.h"
#include "common/sort.h"

#define DIGIT_BITS 11
#define BUCKETS (1u << DIGIT_BITS)

struct kv {
	uint64_t key;
	uint32_t idx;
};

unsigned int sort__bits(uint64_t v)
{
	return v ? 64 - (unsigned int)__builtin_clzll(v) : 0;
}

int sort__radix_perm(const uint64_t *keys, uint32_t *perm, size_t n, unsigned int bits)
{
	unsigned int passes = (bits + DIGIT_BITS - 1) / DIGIT_BITS, p;
	struct kv *a, *b, *t;
	size_t *count;

	if (n < 2 || passes == 0)
		return 0;
	a = bigmem__alloc(n * sizeof(*a));
	b = bigmem__alloc(n * sizeof(*b));
	count = calloc((size_t)passes * BUCKETS, sizeof(*count));
	if (!a || !b || !count) {
		free(a);
		free(b);
		free(count);
		return -ENOMEM;
	}
	/* One read of the keys fills every pass's histogram. */
	for (size_t i = 0; i < n; i++) {
		uint64_t k = keys[perm[i]];

		a[i].key = k;
		a[i].idx = perm[i];
		for (p = 0; p < passes; p++)
			count[p * BUCKETS + ((k >> (p * DIGIT_BITS)) & (BUCKETS - 1))]++;
	}
	for (p = 0; p < passes; p++) {
		size_t *c = count + (size_t)p * BUCKETS, sum = 0;
		unsigned int shift = p * DIGIT_BITS;

		/* A digit every key shares moves nothing: skip the pass. */
		if (c[(a[0].key >> shift) & (BUCKETS - 1)] == n)
			continue;
		for (unsigned int d = 0; d < BUCKETS; d++) {
			size_t v = c[d];

			c[d] = sum;
			sum += v;
		}
		for (size_t i = 0; i < n; i++)
			b[c[(a[i].key >> shift) & (BUCKETS - 1)]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	for (size_t i = 0; i < n; i++)
		perm[i] = a[i].idx;
	free(a);
	free(b);
	free(count);
	return 0;
}
