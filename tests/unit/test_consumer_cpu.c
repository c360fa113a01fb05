/* consumer_cpu: the consumer leaves the CPUs the traced threads keep busy, never all of
 * them, and stays put on quiet windows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "record/consumer_cpu.h"

static cpu_set_t first(int n)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	for (int i = 0; i < n; i++)
		CPU_SET(i, &s);
	return s;
}

/* The picked set as a bit mask of the first 8 CPUs. */
static unsigned mask(const cpu_set_t *s)
{
	unsigned m = 0;

	for (int i = 0; i < 8; i++)
		m |= CPU_ISSET(i, s) ? 1u << i : 0;
	return m;
}

static unsigned pick(const uint64_t *n, int ncpu, cpu_set_t allowed, int *count)
{
	cpu_set_t out;

	*count = consumer_cpu__pick(n, ncpu, &allowed, 100, &out);
	return mask(&out);
}

static void test_two_cpus(void **state)
{
	int k;

	/* One traced thread on CPU 0: the other CPU. */
	assert_int_equal(pick((uint64_t[]){ 5000, 3 }, 2, first(2), &k), 0x2);
	assert_int_equal(k, 1);
	assert_int_equal(pick((uint64_t[]){ 0, 900 }, 2, first(2), &k), 0x1);
	/* Both CPUs busy: both, never one. */
	assert_int_equal(pick((uint64_t[]){ 600, 400 }, 2, first(2), &k), 0x3);
	assert_int_equal(k, 2);
	assert_int_equal(pick((uint64_t[]){ 740, 260 }, 2, first(2), &k), 0x3);
	/* Too few records to say: everything allowed. */
	assert_int_equal(pick((uint64_t[]){ 99, 0 }, 2, first(2), &k), 0x3);
}

static void test_four_cpus(void **state)
{
	int k;

	assert_int_equal(pick((uint64_t[]){ 10, 0, 3000, 20 }, 4, first(4), &k), 0xb);
	assert_int_equal(k, 3);
	assert_int_equal(pick((uint64_t[]){ 1000, 0, 1000, 0 }, 4, first(4), &k), 0xa);
	/* An even share each (a program using every CPU): all of them. */
	assert_int_equal(pick((uint64_t[]){ 250, 250, 250, 250 }, 4, first(4), &k), 0xf);
	assert_int_equal(k, 4);
}

static void test_allowed_only(void **state)
{
	cpu_set_t a;
	int k;

	/* probex run under taskset 0,2: records elsewhere do not count, CPUs elsewhere are
	 * never picked. */
	CPU_ZERO(&a);
	CPU_SET(0, &a);
	CPU_SET(2, &a);
	assert_int_equal(pick((uint64_t[]){ 800, 5000, 0, 5000 }, 4, a, &k), 0x4);
	assert_int_equal(pick((uint64_t[]){ 0, 5000, 0, 5000 }, 4, a, &k), 0x5);
	/* A single CPU: that one. */
	CPU_ZERO(&a);
	CPU_SET(1, &a);
	assert_int_equal(pick((uint64_t[]){ 0, 5000 }, 2, a, &k), 0x2);
	assert_int_equal(k, 1);
}

static void test_repick(void **state)
{
	struct consumer_cpu *c;
	cpu_set_t set;
	int busy = -1, nallowed;

	assert_int_equal(consumer_cpu__new(&c), 0);
	nallowed = CPU_COUNT(&c->allowed);
	for (int i = 0; i < c->ncpu && busy < 0; i++)
		if (CPU_ISSET(i, &c->allowed))
			busy = i;
	/* A quiet start: no move. */
	consumer_cpu__note(c, (uint32_t)busy);
	assert_int_equal(consumer_cpu__repick(c, &set), 0);
	for (int i = 0; i < 10000; i++)
		consumer_cpu__note(c, (uint32_t)busy);
	consumer_cpu__note(c, 1u << 30);	/* out of range: ignored */
	if (nallowed > 1) {
		assert_int_equal(consumer_cpu__repick(c, &set), 1);
		assert_false(CPU_ISSET(busy, &set));
		assert_int_equal(CPU_COUNT(&set), nallowed - 1);
	} else {
		assert_int_equal(consumer_cpu__repick(c, &set), 0);
	}
	/* The window has just begun: nothing changes before its end. */
	for (int i = 0; i < 10000; i++)
		consumer_cpu__note(c, (uint32_t)busy);
	assert_int_equal(consumer_cpu__repick(c, &set), 0);
	consumer_cpu__free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_cpus),
		cmocka_unit_test(test_four_cpus),
		cmocka_unit_test(test_allowed_only),
		cmocka_unit_test(test_repick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
