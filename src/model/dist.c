#include "common/bsearch.h"
#include "model/dist.h"

uint64_t dist__spaced(uint64_t j, uint64_t m, uint64_t n)
{
	if (m <= 1 || n <= 1)
		return n ? n - 1 : 0;
	return (uint64_t)(((unsigned __int128)j * (n - 1) + (m - 1) / 2) / (m - 1));
}

void dist__values(struct json *j, dist_get_fn get, const void *ctx, uint64_t n, uint64_t max_points)
{
	json__arr_begin(j);
	if (!max_points || n <= max_points) {
		json__reserve(j, n * 21);	/* up to 20 digits and a comma each */
		for (uint64_t k = 0; k < n; k++)
			json__u64(j, get(ctx, k));
	} else {
		for (uint64_t k = 0; k < max_points; k++)
			json__u64(j, get(ctx, dist__spaced(k, max_points, n)));
	}
	json__arr_end(j);
}

void dist__cdf(struct json *j, dist_get_fn get, const void *ctx, uint64_t n, uint64_t max_points)
{
	uint64_t m = max_points ? max_points : DIST_DEFAULT_POINTS;

	json__arr_begin(j);
	for (uint64_t k = 0; k < (n < m ? n : m); k++) {
		/* n > m spaces the indices more than one apart, so each point is distinct. */
		uint64_t idx = n <= m ? k : dist__spaced(k, m, n);

		json__arr_begin(j);
		json__u64(j, get(ctx, idx));
		json__double(j, (double)(idx + 1) / (double)n);
		json__arr_end(j);
	}
	json__arr_end(j);
}

/* Number of values < v. */
static uint64_t below(dist_get_fn get, const void *ctx, uint64_t n, uint64_t v)
{
	return BSEARCH_FIRST((uint64_t)0, n, i, get(ctx, i) < v);
}

void dist__histogram(struct json *j, dist_get_fn get, const void *ctx, uint64_t n)
{
	uint64_t edges[66], cum[66];
	int first = -1, last = -1;

	/* Bin b is [edges[b], edges[b+1]): edges 0, 1, 2, 4, ... 2^63, then the top. */
	edges[0] = 0;
	for (int b = 1; b <= 64; b++)
		edges[b] = 1ull << (b - 1);
	for (int b = 0; b <= 64; b++)
		cum[b] = below(get, ctx, n, edges[b]);
	cum[65] = n;
	for (int b = 0; b <= 64; b++) {
		if (cum[b + 1] > cum[b]) {
			if (first < 0)
				first = b;
			last = b;
		}
	}
	json__arr_begin(j);
	for (int b = first; first >= 0 && b <= last; b++) {
		json__obj_begin(j);
		json__key(j, "lo");
		json__u64(j, edges[b]);
		json__key(j, "hi");
		/* The last bin's top, 2^64, does not fit: report the largest value instead. */
		json__u64(j, b < 64 ? edges[b + 1] : get(ctx, n - 1));
		json__key(j, "count");
		json__u64(j, cum[b + 1] - cum[b]);
		json__obj_end(j);
	}
	json__arr_end(j);
}
