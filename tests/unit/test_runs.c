/* Finalize's external sort (finalize/runs.c, runfile.c) and the ring-mode spool: rows come
 * back in stable time order however many runs are spilled and merged; a ring spool reads
 * back as the most recent items plus the side copies of dropped segments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "finalize/runs.h"
#include "spool/spool.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Nearly sorted times, as a ring buffer delivers them, with duplicates and stragglers. */
static void check_sort(uint64_t n, uint64_t run_rows)
{
	char path[] = "/tmp/probex-test-runs.XXXXXX";
	struct rowref *in = calloc(n ? n : 1, sizeof(*in)), got;
	struct runs *r;
	uint64_t i, out = 0, prev_ts = 0, prev_item = 0;
	int fd = mkstemp(path), rc;

	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(runs__new(&r, path, run_rows), 0);
	for (i = 0; i < n; i++) {
		uint64_t base = i * 100, jitter = next_rand() % 8 == 0 ? next_rand() % 100000 : 0;

		in[i] = (struct rowref){ .ts = (base > jitter ? base - jitter : 0) / 7 * 7,
					 .item = i | (i % 3 == 0 ? ROWREF_EXIT_HALF : 0),
					 .ustack = (int32_t)(i % 5) - 1, .kstack = (int32_t)(next_rand() % 1000000) - 1,
					 .wustack = i % 7 ? -1 : (int32_t)(next_rand() % 5000),
					 .wkstack = i % 11 ? -1 : (int32_t)(next_rand() % 70000) };
		assert_int_equal(runs__add(r, &in[i]), 0);
	}
	assert_int_equal(runs__finish(r), 0);
	assert_int_equal(runs__rows(r), n);
	if (n > run_rows)
		assert_true(runs__spilled(r) >= n / run_rows);
	else
		assert_int_equal(runs__spilled(r), 0);
	while ((rc = runs__next(r, &got)) == 1) {
		uint64_t idx = got.item & ~ROWREF_EXIT_HALF;

		assert_true(idx < n);
		assert_memory_equal(&got, &in[idx], sizeof(got));
		/* Stable: equal times keep arrival order. */
		assert_true(out == 0 || got.ts > prev_ts || (got.ts == prev_ts && idx > prev_item));
		prev_ts = got.ts;
		prev_item = idx;
		out++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(out, n);
	assert_int_not_equal(access(path, F_OK), 0);	/* the spill file never has a name for long */
	runs__free(r);
	free(in);
}

static void test_in_memory(void **state)
{
	check_sort(0, 1000);
	check_sort(1, 1000);
	check_sort(1000, 1000);
	check_sort(200000, 200000);	/* one run long enough for 16-bit digits */
}

static void test_spilled(void **state)
{
	check_sort(1001, 1000);
	check_sort(50000, 4096);	/* 13 runs: one merge */
}

static void test_multi_pass(void **state)
{
	check_sort(100000, 16);		/* 6250 runs: merged 64 at a time, twice, then once */
	check_sort(70000, 1000);	/* 70 runs: just over one merge's fan-in */
}

static void test_ring_spool(void **state)
{
	char path[] = "/tmp/probex-test-spool.XXXXXX";
	struct spool_writer *w;
	struct spool_map m;
	struct spool_item it;
	uint64_t rec[64] = { 0 }, n = 200000, seen = 0, first = UINT64_MAX, last = 0, side = 0;
	int fd = mkstemp(path), rc;

	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(spool_writer__open(&w, path), 0);
	assert_int_equal(spool_writer__append(w, SPOOL_SESSION, "session", 7), 0);
	assert_int_equal(spool_writer__set_ring(w, 8u << 20), 0);
	for (uint64_t i = 0; i < n; i++) {	/* 200000 x 512 B: ~100 MiB through an 8 MiB ring */
		rec[0] = i;
		if (i % 1000 == 0)
			assert_int_equal(spool_writer__append_side(w, SPOOL_PERF, rec, 24, SPOOL_PERF), 0);
		else
			assert_int_equal(spool_writer__append(w, SPOOL_BPF, rec, sizeof(rec) - 8), 0);
	}
	assert_int_equal(spool_writer__close(w), 0);
	assert_int_equal(spool_map__open(&m, path), 0);
	assert_int_equal(spool_map__next(&m, &it), 1);
	assert_int_equal(it.tag, SPOOL_SESSION);
	while ((rc = spool_map__next(&m, &it)) == 1) {
		uint64_t v;

		memcpy(&v, it.data, 8);
		if (it.tag == SPOOL_PERF) {
			assert_int_equal(v % 1000, 0);
			side++;
			continue;
		}
		assert_int_equal(it.tag, SPOOL_BPF);
		assert_true(v > last || !seen);		/* in order, no repeats */
		if (seen && v != last + 1)
			assert_int_equal(v % 1000, 1);		/* only the side items in between */
		if (v < first)
			first = v;
		last = v;
		seen++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(last, n - 1);			/* the most recent items are kept ... */
	assert_true(seen * 520 >= (7u << 20));		/* ... ~7-8 MiB of them ... */
	assert_true(seen * 520 <= (8u << 20));
	assert_true(first > n / 2);			/* ... and not the first ones */
	assert_int_equal(side, n / 1000);		/* every side item once: kept or re-appended */
	spool_map__close(&m);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_memory),
		cmocka_unit_test(test_spilled),
		cmocka_unit_test(test_multi_pass),
		cmocka_unit_test(test_ring_spool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
