/* Stable LSD radix sort for large arrays of 64-bit keys (millions of trace rows). */
#ifndef PROBEX_COMMON_SORT_H
#define PROBEX_COMMON_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Reorder perm[0..n) so keys[perm[i]] ascend, looking only at the low `bits` bits of the
 * keys (the caller knows the range); equal keys keep their order in perm.  keys is indexed
 * by the values in perm.  Returns 0 or -ENOMEM. */
int sort__radix_perm(const uint64_t *keys, uint32_t *perm, size_t n, unsigned int bits);

/* Number of significant bits in v (0 for 0). */
unsigned int sort__bits(uint64_t v);

#endif
