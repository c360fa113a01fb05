/* An array of 32-bit values that lie close to their neighbours (row numbers of one
 * process or one event type, ascending in runs) in about 2 bytes each: per block of 256
 * values the least, and each value's distance from it in 16 bits.  A block whose values
 * spread wider keeps the distances' high halves too (4 bytes a value there), so any
 * array packs and every read is O(1): two loads, three for a wide block. */
#ifndef PROBEX_COMMON_PACK32_H
#define PROBEX_COMMON_PACK32_H

#include <stdint.h>

#define PACK32_SHIFT 8
#define PACK32_BLOCK (1u << PACK32_SHIFT)
#define PACK32_NARROW UINT32_MAX

struct pack32 {
	uint64_t n;
	uint32_t *base;		/* per block: its least value */
	uint32_t *wide;		/* per block: its slot in hi, or PACK32_NARROW */
	uint16_t *lo;		/* per value: distance from its block's base, low half */
	uint16_t *hi;		/* PACK32_BLOCK high halves per wide block */
	uint64_t nwide;
};

/* Pack v[0..n); v is left alone.  0 or -ENOMEM (p is then empty). */
int pack32__build(struct pack32 *p, const uint32_t *v, uint64_t n);
void pack32__free(struct pack32 *p);

static inline uint32_t pack32__get(const struct pack32 *p, uint64_t i)
{
	uint64_t b = i >> PACK32_SHIFT;
	uint32_t d = p->lo[i];

	if (p->wide[b] != PACK32_NARROW)
		d |= (uint32_t)p->hi[((uint64_t)p->wide[b] << PACK32_SHIFT) | (i & (PACK32_BLOCK - 1))] << 16;
	return p->base[b] + d;
}

/* Bytes p holds. */
static inline uint64_t pack32__bytes(const struct pack32 *p)
{
	uint64_t nblocks = (p->n + PACK32_BLOCK - 1) >> PACK32_SHIFT;

	return p->n * 2 + nblocks * 8 + p->nwide * PACK32_BLOCK * 2;
}

#endif
