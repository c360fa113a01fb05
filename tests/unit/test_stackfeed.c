/* Stack sets read by a second thread while their owner interns (finalize labels stacks
 * beside indexing): every stack the reader copies is the one interned under that id,
 * the reader sees every stack of both sets, and it is woken when the feed closes. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "finalize/stackset.h"

#define NSTACKS 50000

struct shared {
	struct stackset *a, *b;
	struct stackfeed *feed;
	uint32_t seen_a, seen_b, bad;
};

/* Stack i of set a: frames i, i+1, ... (i % 40 + 1 of them); of set b: ~i, ... */
static uint32_t frames_of(uint32_t i, bool in_b, uint64_t *f)
{
	uint32_t n = i % 40 + 1;

	for (uint32_t k = 0; k < n; k++)
		f[k] = in_b ? ~(uint64_t)(i + k) : (uint64_t)i << 8 | k;
	return n;
}

static void check(struct shared *sh, struct stackset *s, uint32_t id, bool in_b, uint64_t **buf,
		  size_t *cap)
{
	struct stack_entry e;
	uint64_t want[64];
	uint32_t n = frames_of(id, in_b, want);

	if (stackset__copy(s, id, &e, buf, cap) || e.n != n || e.space != (in_b ? 2 : 1) ||
	    e.ts != id || memcmp(e.frames, want, n * sizeof(*want)))
		sh->bad++;
}

static void *reader(void *arg)
{
	struct shared *sh = arg;
	uint32_t na = 0, nb = 0;
	uint64_t *buf = NULL;
	size_t cap = 0;

	for (bool more = true; more;) {
		for (; sh->seen_a < na; sh->seen_a++)
			check(sh, sh->a, sh->seen_a, false, &buf, &cap);
		for (; sh->seen_b < nb; sh->seen_b++)
			check(sh, sh->b, sh->seen_b, true, &buf, &cap);
		more = stackfeed__wait(sh->feed, sh->a, &na, sh->b, &nb);
	}
	free(buf);
	return NULL;
}

static void test_reader_beside_owner(void **state)
{
	struct shared sh = { .a = stackset__new(), .b = stackset__new(), .feed = stackfeed__new() };
	uint64_t f[64];
	pthread_t t;

	assert_non_null(sh.a);
	assert_non_null(sh.b);
	assert_non_null(sh.feed);
	stackset__share(sh.a, sh.feed);
	stackset__share(sh.b, sh.feed);
	assert_int_equal(pthread_create(&t, NULL, reader, &sh), 0);
	for (uint32_t i = 0; i < NSTACKS; i++) {
		uint32_t n = frames_of(i, false, f);

		assert_int_equal(stackset__intern(sh.a, 1, f, n, 0, i), i);
		/* a repeat is no new stack */
		assert_int_equal(stackset__intern(sh.a, 1, f, n, 0, i + 1), i);
		if (i % 3 == 0) {
			n = frames_of(i / 3, true, f);
			assert_int_equal(stackset__intern(sh.b, 2, f, n, 0, i / 3), i / 3);
		}
	}
	stackfeed__close(sh.feed);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(sh.bad, 0);
	assert_int_equal(sh.seen_a, NSTACKS);
	assert_int_equal(sh.seen_b, (NSTACKS + 2) / 3);
	stackset__free(sh.a);
	stackset__free(sh.b);
	stackfeed__free(sh.feed);
}

/* Closing with fewer stacks than a wake-up batch still delivers them. */
static void test_close_wakes_reader(void **state)
{
	struct shared sh = { .a = stackset__new(), .b = stackset__new(), .feed = stackfeed__new() };
	uint64_t f[64];
	pthread_t t;

	stackset__share(sh.a, sh.feed);
	stackset__share(sh.b, sh.feed);
	assert_int_equal(pthread_create(&t, NULL, reader, &sh), 0);
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(stackset__intern(sh.a, 1, f, frames_of(i, false, f), 0, i), i);
	stackfeed__close(sh.feed);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(sh.bad, 0);
	assert_int_equal(sh.seen_a, 3);
	assert_int_equal(sh.seen_b, 0);
	stackset__free(sh.a);
	stackset__free(sh.b);
	stackfeed__free(sh.feed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_beside_owner),
		cmocka_unit_test(test_close_wakes_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
