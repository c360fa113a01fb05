/* Seeded pseudo-randomness for `probex synth`: splitmix64, so a seed fixes every byte. */
#ifndef PROBEX_TRACE_SYNTH_RAND_H
#define PROBEX_TRACE_SYNTH_RAND_H

#include <math.h>
#include <stdint.h>

static inline uint64_t synth__mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

struct synth_rng {
	uint64_t state;
};

static inline uint64_t synth_rng__next(struct synth_rng *r)
{
	r->state += 0x9e3779b97f4a7c15ull;
	return synth__mix(r->state);
}

/* Uniform in [0, n). */
static inline uint64_t synth_rng__below(struct synth_rng *r, uint64_t n)
{
	return n ? synth_rng__next(r) % n : 0;
}

/* Uniform in [0, 1). */
static inline double synth_rng__unit(struct synth_rng *r)
{
	return (double)(synth_rng__next(r) >> 11) / 9007199254740992.0;
}

/* Log-uniform in [lo, hi): latencies and sizes spread over orders of magnitude. */
static inline uint64_t synth_rng__logu(struct synth_rng *r, double lo, double hi)
{
	return (uint64_t)exp(log(lo) + synth_rng__unit(r) * (log(hi) - log(lo)));
}

#endif
