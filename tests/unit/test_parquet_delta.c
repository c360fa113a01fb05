/* DELTA_BINARY_PACKED columns read back exactly through DuckDB: sorted timestamps, random
 * and wrapping values, nulls, partial blocks and miniblocks, tiny pages, zero width. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "parquet_check.h"


static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void roundtrip(uint32_t n, int kind, bool nulls, const struct pq_options *o)
{
	uint64_t *u = malloc((n + 1) * sizeof(*u));
	int64_t *s = malloc((n + 1) * sizeof(*s));
	uint8_t *valid = malloc(n + 1);
	static const uint32_t rg[] = { 1000, 129, 33, 1 };
	uint64_t t = 5000000000ull;

	for (uint32_t i = 0; i < n; i++) {
		switch (kind) {
		case 0: t += next() % 2000; u[i] = t; break;		/* sorted, jittery */
		case 1: u[i] = next(); break;				/* anything, wraps */
		case 2: u[i] = 42; break;				/* zero-width deltas */
		default: u[i] = i % 3 ? UINT64_MAX - i : i; break;	/* extremes */
		}
		s[i] = (int64_t)next() >> (i % 64);
		valid[i] = !nulls || next() % 4;
	}
	struct tcol cols[] = {
		{ { "ts", PQ_U64, true, true, false }, u, NULL, NULL, NULL },
		{ { "sv", PQ_I64, false, true, false }, s, valid, NULL, NULL },
		{ { "uv", PQ_U64, false, true, false }, u, valid, NULL, NULL },
	};
	struct ttable tab = { 3, cols, n };

	assert_int_equal(pqt_write(pqt_path, &tab, rg, 4, o, NULL, 0), 0);
	pqt_verify(pqt_path, &tab);
	free(u);
	free(s);
	free(valid);
}

static void test_sorted(void **state)
{
	roundtrip(100000, 0, false, NULL);
	roundtrip(100000, 0, true, NULL);
}

static void test_random_and_extremes(void **state)
{
	roundtrip(5000, 1, true, NULL);
	roundtrip(5000, 3, true, NULL);
	roundtrip(5000, 2, false, NULL);
}

/* A page of a delta column with no value at all (submit_ts_ns in a trace without
 * io_uring): nothing to re-encode. */
static void test_all_null(void **state)
{
	uint64_t u[64] = { 0 };
	uint8_t valid[64] = { 0 };
	static const uint32_t rg[] = { 64 };
	struct tcol cols[] = { { { "uv", PQ_U64, false, true, false }, u, valid, NULL, NULL } };
	struct ttable tab = { 1, cols, 64 };

	assert_int_equal(pqt_write(pqt_path, &tab, rg, 1, NULL, NULL, 0), 0);
	pqt_verify(pqt_path, &tab);
}

static void test_small_sizes_and_pages(void **state)
{
	struct pq_options o = { .page_bytes = 64 };

	for (uint32_t n = 1; n < 300; n += 37)
		roundtrip(n, 0, n % 2, &o);
	roundtrip(129, 1, false, &o);
}

static void test_encoding_declared(void **state)
{
	roundtrip(1000, 0, false, NULL);
	pqt_expect(pqt_path, "SELECT count(*) FROM parquet_metadata(%P) WHERE path_in_schema = 'ts' "
			 "AND encodings LIKE '%DELTA_BINARY_PACKED%'", "1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted),
		cmocka_unit_test(test_random_and_extremes),
		cmocka_unit_test(test_small_sizes_and_pages),
		cmocka_unit_test(test_encoding_declared),
		cmocka_unit_test(test_all_null),
	};
	return cmocka_run_group_tests(tests, pqt_group_setup, pqt_group_teardown);
}
