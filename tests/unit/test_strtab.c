/* String interning for the Parquet writer: dense ids, and only valid UTF-8 stored
 * (readers refuse a whole file over one invalid STRING value). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <string.h>

#include "common/utf8.h"
#include "parquet/strtab.h"

static bool valid_utf8(const char *s, uint32_t n)
{
	for (uint32_t i = 0, l; i < n; i += l)
		if (!(l = (uint32_t)utf8__seq_len((const unsigned char *)s + i, n - i)))
			return false;
	return true;
}

static void test_ids_are_dense_and_stable(void **state)
{
	struct intern t = { 0 };

	assert_int_equal(strtab__intern(&t, "bash", 4), 0);
	assert_int_equal(strtab__intern(&t, "caf\xc3\xa9", 5), 1);	/* valid UTF-8 is kept */
	assert_int_equal(strtab__intern(&t, "bash", 4), 0);
	assert_int_equal(strtab__intern(&t, "", 0), 2);
	assert_memory_equal(t.strs[1], "caf\xc3\xa9", 6);
	for (int i = 0; i < 5000; i++) {
		char s[16];

		snprintf(s, sizeof(s), "s%d", i);
		assert_int_equal(strtab__intern(&t, s, (uint32_t)strlen(s)), 3 + i);
	}
	assert_int_equal(strtab__intern(&t, "caf\xc3\xa9", 5), 1);
	intern__free(&t);
}

static void test_invalid_bytes_become_replacement_chars(void **state)
{
	static const struct { const char *in; uint32_t len; const char *out; } cases[] = {
		{ "\xe9t\xe9", 3, "\xef\xbf\xbdt\xef\xbf\xbd" },	/* Latin-1 comm */
		{ "a\xc3", 2, "a\xef\xbf\xbd" },			/* cut sequence */
		{ "\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd" },		/* overlong '/' */
		{ "\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },	/* surrogate */
		{ "\xf4\x90\x80\x80", 4, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "ok\xff\xfe!", 5, "ok\xef\xbf\xbd\xef\xbf\xbd!" },
	};
	struct intern t = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t id = strtab__intern(&t, cases[i].in, cases[i].len);

		assert_true(id >= 0);
		assert_int_equal(t.lens[id], strlen(cases[i].out));
		assert_memory_equal(t.strs[id], cases[i].out, t.lens[id]);
		assert_true(valid_utf8(t.strs[id], t.lens[id]));
		/* The same bytes again, and their repaired form, are the same string. */
		assert_int_equal(strtab__intern(&t, cases[i].in, cases[i].len), id);
		assert_int_equal(strtab__intern(&t, cases[i].out, (uint32_t)strlen(cases[i].out)), id);
	}
	intern__free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_are_dense_and_stable),
		cmocka_unit_test(test_invalid_bytes_become_replacement_chars),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
