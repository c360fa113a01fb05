/* Bounded views of a sorted distribution (latencies, sizes) for the UI: evenly spaced
 * order statistics, an empirical CDF of at most N points and power-of-two histograms,
 * instead of every value (the 0.1 viewer API's arrays). */
#ifndef PROBEX_MODEL_DIST_H
#define PROBEX_MODEL_DIST_H

#include <stdint.h>

#include "common/json.h"

#define DIST_DEFAULT_POINTS 1000

/* The k-th smallest value, k < n. */
typedef uint64_t (*dist_get_fn)(const void *ctx, uint64_t k);

/* Index of the j-th of m evenly spaced order statistics among n (first and last kept). */
uint64_t dist__spaced(uint64_t j, uint64_t m, uint64_t n);

/* All n values ascending (max_points 0, as in the 0.1 viewer API), or max_points of them. */
void dist__values(struct json *j, dist_get_fn get, const void *ctx, uint64_t n, uint64_t max_points);
/* [[value, fraction of values <= value], ...], at most max_points (or the default) points. */
void dist__cdf(struct json *j, dist_get_fn get, const void *ctx, uint64_t n, uint64_t max_points);
/* [{"lo":a,"hi":b,"count":c}, ...]: bins [0,1), [1,2), [2,4), ... from the first to the
 * last non-empty one (at most 65). */
void dist__histogram(struct json *j, dist_get_fn get, const void *ctx, uint64_t n);

#endif
