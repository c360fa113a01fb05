/* Seeded pseudo-randomness (splitmix64): a seed fixes every byte of a synthetic trace
 * and every deterministic sample the viewer draws. */
#ifndef PROBEX_COMMON_RNG_H
#define PROBEX_COMMON_RNG_H

#include <math.h>
#include <stdint.h>

static inline uint64_t rng__mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

struct rng {
	uint64_t state;
};

static inline uint64_t rng__next(struct rng *r)
{
	r->state += 0x9e3779b97f4a7c15ull;
	return rng__mix(r->state);
}

/* Uniform in [0, n). */
static inline uint64_t rng__below(struct rng *r, uint64_t n)
{
	return n ? rng__next(r) % n : 0;
}

/* Uniform in [0, 1). */
static inline double rng__unit(struct rng *r)
{
	return (double)(rng__next(r) >> 11) / 9007199254740992.0;
}

/* Log-uniform in [lo, hi): latencies and sizes spread over orders of magnitude. */
static inline uint64_t rng__logu(struct rng *r, double lo, double hi)
{
	return (uint64_t)exp(log(lo) + rng__unit(r) * (log(hi) - log(lo)));
}

#endif
