/* Dictionary-encoded UINT32 columns read back exactly through DuckDB: few and many
 * distinct values, nulls, tiny pages, an all-null chunk, and a chunk holding a value past
 * PQ_INT_DICT_LIMIT (written PLAIN instead); row-group statistics still prune. */
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

/* kind 0: 50 distinct values in runs; 1: 5000 distinct; 2: one past the limit in the
 * second row group; 3: all null. */
static void roundtrip(uint32_t n, int kind, bool nulls, const struct pq_options *o)
{
	uint32_t *v = malloc((n + 1) * sizeof(*v)), *w = malloc((n + 1) * sizeof(*w));
	uint8_t *valid = malloc(n + 1);
	static const uint32_t rg[] = { 1000, 129, 33, 1 };

	for (uint32_t i = 0; i < n; i++) {
		switch (kind) {
		case 0: v[i] = (uint32_t)(i / 7 % 50) * 3; break;
		case 1: v[i] = (uint32_t)(next() % 5000); break;
		case 2: v[i] = i == 1100 ? PQ_INT_DICT_LIMIT + 5 : (uint32_t)(next() % 100); break;
		default: v[i] = 1; break;
		}
		w[i] = (uint32_t)next();
		valid[i] = kind != 3 && (!nulls || next() % 4);
	}
	struct tcol cols[] = {
		{ { "id", PQ_U32, false, false, true }, v, valid, NULL, NULL },
		{ { "req", PQ_U32, true, false, true }, w, NULL, NULL, NULL },
	};
	struct ttable tab = { 2, cols, n };

	assert_int_equal(pqt_write(pqt_path, &tab, rg, 4, o, NULL, 0), 0);
	pqt_verify(pqt_path, &tab);
	free(v);
	free(w);
	free(valid);
}

static void test_values(void **state)
{
	roundtrip(20000, 0, false, NULL);
	roundtrip(20000, 0, true, NULL);
	roundtrip(20000, 1, true, NULL);
	roundtrip(3000, 2, true, NULL);
	roundtrip(500, 3, true, NULL);
}

static void test_small_pages(void **state)
{
	struct pq_options o = { .page_bytes = 64 };

	for (uint32_t n = 1; n < 300; n += 37)
		roundtrip(n, n % 2, n % 3, &o);
}

static void test_encoding_and_pruning(void **state)
{
	roundtrip(1000, 0, false, NULL);
	pqt_expect(pqt_path, "SELECT count(*) FROM parquet_metadata(%P) WHERE path_in_schema = 'id' "
			 "AND encodings LIKE '%RLE_DICTIONARY%'", "1");
	/* Values 0, 3, .., 147: min and max are the chunk's, so a filter past them is empty. */
	pqt_expect(pqt_path, "SELECT min(stats_min_value) || ' ' || max(stats_max_value) FROM "
			 "parquet_metadata(%P) WHERE path_in_schema = 'id'", "0 147");
	pqt_expect(pqt_path, "SELECT count(*) FROM read_parquet(%P) WHERE id = 147", "14");
	roundtrip(3000, 2, false, NULL);
	pqt_expect(pqt_path, "SELECT count(*) FROM parquet_metadata(%P) WHERE path_in_schema = 'id' "
			 "AND encodings NOT LIKE '%RLE_DICTIONARY%'", "1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_small_pages),
		cmocka_unit_test(test_encoding_and_pruning),
	};

	return cmocka_run_group_tests(tests, pqt_group_setup, pqt_group_teardown);
}
