/* The one percentile rule of probex's tables (viewer, report): the p-th percentile of n
 * ascending values is the value at index min(n*p/100, n-1), the 0.1 viewer API's
 * IO-table rule.  A header of its own so the viewer and `probex report` cannot drift. */
#ifndef PROBEX_COMMON_PCT_H
#define PROBEX_COMMON_PCT_H

#include <stdint.h>

/* Index of the p-th percentile (p in 0..100) among n > 0 sorted values. */
static inline uint64_t pct__index(uint64_t n, unsigned int p)
{
	uint64_t idx = (uint64_t)((unsigned __int128)n * p / 100);

	return idx < n ? idx : n - 1;
}

#endif
