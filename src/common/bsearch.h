/* Binary searches over sorted data: the loop each lookup used to write out.  Inline, and
 * a macro for searches by any predicate, so that lookups in hot loops cost what the
 * written-out loop did. */
#ifndef PROBEX_COMMON_BSEARCH_H
#define PROBEX_COMMON_BSEARCH_H

#include <stdint.h>

/* The first index i in [lo, hi) for which BELOW, an expression of i, is false (hi when it
 * is true throughout).  BELOW must be true on a prefix of the range and false after it:
 * "a[i] < key" gives the lower bound, "a[i] <= key" the upper bound. */
#define BSEARCH_FIRST(lo, hi, i, BELOW)						\
	({									\
		__typeof__((lo) + (hi)) bs_lo_ = (lo), bs_hi_ = (hi);		\
		while (bs_lo_ < bs_hi_) {					\
			__typeof__(bs_lo_) i = bs_lo_ + (bs_hi_ - bs_lo_) / 2;	\
			if (BELOW)						\
				bs_lo_ = i + 1;					\
			else							\
				bs_hi_ = i;					\
		}								\
		bs_lo_;								\
	})

/* The first index in a[0..n) (ascending) whose value is >= key. */
static inline uint64_t bsearch__lower_u32(const uint32_t *a, uint64_t n, uint64_t key)
{
	return BSEARCH_FIRST((uint64_t)0, n, i, a[i] < key);
}

static inline uint64_t bsearch__lower_u64(const uint64_t *a, uint64_t n, uint64_t key)
{
	return BSEARCH_FIRST((uint64_t)0, n, i, a[i] < key);
}

static inline uint64_t bsearch__lower_i64(const int64_t *a, uint64_t n, int64_t key)
{
	return BSEARCH_FIRST((uint64_t)0, n, i, a[i] < key);
}

/* Index of key in a[0..n) (ascending, distinct), or -1. */
static inline int64_t bsearch__find_u32(const uint32_t *a, uint64_t n, uint32_t key)
{
	uint64_t i = bsearch__lower_u32(a, n, key);

	return i < n && a[i] == key ? (int64_t)i : -1;
}

#endif
