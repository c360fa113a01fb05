/* A growable set of small integers, a bit each. */
#ifndef PROBEX_COMMON_BITSET_H
#define PROBEX_COMMON_BITSET_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct bitset {
	uint64_t *words;
	uint64_t nwords;
};

/* Add i: 1 when it was not in the set, 0 when it was, -ENOMEM. */
static inline int bitset__add(struct bitset *b, uint64_t i)
{
	uint64_t w = i / 64, bit = 1ull << (i % 64);

	if (w >= b->nwords) {
		uint64_t n = b->nwords ? b->nwords : 64, *p;

		while (n <= w)
			n *= 2;
		p = realloc(b->words, n * sizeof(*p));
		if (!p)
			return -ENOMEM;
		memset(p + b->nwords, 0, (n - b->nwords) * sizeof(*p));
		b->words = p;
		b->nwords = n;
	}
	if (b->words[w] & bit)
		return 0;
	b->words[w] |= bit;
	return 1;
}

static inline void bitset__free(struct bitset *b)
{
	free(b->words);
	b->words = NULL;
	b->nwords = 0;
}

#endif
