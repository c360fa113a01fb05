/* The off-CPU join done while indexing (finalize/offjoin.c): an off_cpu row gets the
 * stacks of its own blocking switch and waker only (same thread, same block time), never a
 * stale block's; many threads and many blocks keep one entry per thread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "finalize/offjoin.h"

static void test_joins_own_block_and_waker(void **state)
{
	struct offjoin *j = offjoin__new();
	struct offjoin_stacks own = { -1, -1 }, waker = { -1, -1 };

	assert_non_null(j);
	assert_int_equal(offjoin__block(j, 100, 1000, (struct offjoin_stacks){ 3, 4 }), 0);
	assert_int_equal(offjoin__wake(j, 100, 1000, (struct offjoin_stacks){ 5, 6 }), 0);
	offjoin__offcpu(j, 100, 1000, &own, &waker);
	assert_int_equal(own.u, 3);
	assert_int_equal(own.k, 4);
	assert_int_equal(waker.u, 5);
	assert_int_equal(waker.k, 6);
	offjoin__free(j);
}

/* A long interval's stacks taken at its end: the kernel one noted by thread and block
 * time, the user one on the off_cpu record itself, which keeps it. */
static void test_keeps_the_rows_own_user_stack(void **state)
{
	struct offjoin *j = offjoin__new();
	struct offjoin_stacks own = { 7, -1 }, waker = { -1, -1 };

	assert_non_null(j);
	assert_int_equal(offjoin__block(j, 100, 1000, (struct offjoin_stacks){ -1, 4 }), 0);
	offjoin__offcpu(j, 100, 1000, &own, &waker);
	assert_int_equal(own.u, 7);
	assert_int_equal(own.k, 4);
	assert_int_equal(waker.u, -1);
	offjoin__free(j);
}

static void test_stale_or_other_thread_is_not_joined(void **state)
{
	struct offjoin *j = offjoin__new();
	struct offjoin_stacks own = { 7, 8 }, waker = { -1, -1 };

	assert_non_null(j);
	/* A block whose switch had stacks, then a later one of the same thread without
	 * (sampled out): the later off_cpu row keeps its own stacks, no waker. */
	assert_int_equal(offjoin__block(j, 100, 1000, (struct offjoin_stacks){ 3, 4 }), 0);
	assert_int_equal(offjoin__wake(j, 100, 1000, (struct offjoin_stacks){ 5, 6 }), 0);
	offjoin__offcpu(j, 100, 2000, &own, &waker);
	assert_int_equal(own.u, 7);
	assert_int_equal(own.k, 8);
	assert_int_equal(waker.u, -1);
	/* Another thread at the same time gets nothing. */
	offjoin__offcpu(j, 101, 1000, &own, &waker);
	assert_int_equal(own.u, 7);
	assert_int_equal(waker.u, -1);
	/* A waker without a stacked switch: only the waker joins. */
	assert_int_equal(offjoin__wake(j, 102, 50, (struct offjoin_stacks){ -1, 9 }), 0);
	offjoin__offcpu(j, 102, 50, &own, &waker);
	assert_int_equal(own.u, 7);
	assert_int_equal(waker.k, 9);
	offjoin__free(j);
}

static void test_many_threads_many_blocks(void **state)
{
	struct offjoin *j = offjoin__new();

	assert_non_null(j);
	for (uint32_t round = 0; round < 50; round++) {
		for (uint32_t tid = 1; tid <= 2000; tid++) {
			uint64_t ts = round * 100000ull + tid;
			struct offjoin_stacks own = { -1, -1 }, waker = { -1, -1 };

			assert_int_equal(offjoin__block(j, tid, ts, (struct offjoin_stacks){ (int32_t)tid, (int32_t)round }), 0);
			if (tid % 2)
				assert_int_equal(offjoin__wake(j, tid, ts, (struct offjoin_stacks){ (int32_t)round, -1 }), 0);
			offjoin__offcpu(j, tid, ts, &own, &waker);
			assert_int_equal(own.u, (int32_t)tid);
			assert_int_equal(own.k, (int32_t)round);
			assert_int_equal(waker.u, tid % 2 ? (int32_t)round : -1);
		}
	}
	offjoin__free(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_joins_own_block_and_waker),
		cmocka_unit_test(test_keeps_the_rows_own_user_stack),
		cmocka_unit_test(test_stale_or_other_thread_is_not_joined),
		cmocka_unit_test(test_many_threads_many_blocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
