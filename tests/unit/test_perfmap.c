/* JIT maps (/tmp/perf-PID.map): the lines runtimes write, the ones they should not, and
 * which entry names an address when code is recycled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "symbolize/perfmap.h"

static struct perfmap *parse(const char *text)
{
	struct perfmap *pm = perfmap__new();

	assert_non_null(pm);
	assert_int_equal(perfmap__add(pm, text, strlen(text)), 0);
	return pm;
}

static void test_lines_and_lookup(void **state)
{
	struct perfmap *pm = parse("7f0000001000 40 LazyCompile:~foo /app/x.js:1\n"
				   "0x7f0000001040 0x10 Builtin:bar\r\n"
				   "7f0000002000 8 last without newline");
	uint64_t n, bad;

	assert_string_equal(perfmap__lookup(pm, 0x7f0000001000), "LazyCompile:~foo /app/x.js:1");
	assert_string_equal(perfmap__lookup(pm, 0x7f000000103f), "LazyCompile:~foo /app/x.js:1");
	assert_string_equal(perfmap__lookup(pm, 0x7f0000001040), "Builtin:bar");
	assert_null(perfmap__lookup(pm, 0x7f0000001050));
	assert_null(perfmap__lookup(pm, 0x7f0000000fff));
	assert_string_equal(perfmap__lookup(pm, 0x7f0000002007), "last without newline");
	perfmap__counts(pm, &n, &bad);
	assert_int_equal(n, 3);
	assert_int_equal(bad, 0);
	perfmap__free(pm);
}

static void test_malformed_lines_skipped(void **state)
{
	/* no size; size 0; wraps; not hex; 17 digits; no name; NUL in the name */
	static const char text[] = "1000\n2000 0 zero\nffffffffffffff00 200 wrap\nzz 10 x\n"
				   "10000000000000000 10 long\n3000 10\n4000 10 a\0b\n5000 10 ok\n";
	struct perfmap *pm = perfmap__new();
	uint64_t n, bad;

	assert_int_equal(perfmap__add(pm, text, sizeof(text) - 1), 0);
	perfmap__counts(pm, &n, &bad);
	assert_int_equal(n, 1);
	assert_int_equal(bad, 7);
	assert_string_equal(perfmap__lookup(pm, 0x5000), "ok");
	assert_null(perfmap__lookup(pm, 0x2000));
	perfmap__free(pm);
}

static void test_later_entry_wins(void **state)
{
	struct perfmap *pm = parse("1000 100 old\n");

	/* Maps arrive in chunks while recording; recycled code is named by its newest entry. */
	assert_int_equal(perfmap__add(pm, "1000 100 new\n", 13), 0);
	assert_string_equal(perfmap__lookup(pm, 0x1010), "new");
	assert_int_equal(perfmap__add(pm, "1080 10 inner\n", 14), 0);
	assert_string_equal(perfmap__lookup(pm, 0x1084), "inner");
	assert_string_equal(perfmap__lookup(pm, 0x10a0), "new");
	perfmap__free(pm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_and_lookup),
		cmocka_unit_test(test_malformed_lines_skipped),
		cmocka_unit_test(test_later_entry_wins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
