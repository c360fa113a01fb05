/* strbuf: formatted appends that fit the room left, that need growing, many in a row
 * (each compared with snprintf's own output), the hex appender against "%" PRIx64, and JSON
 * strings against the JSON writer. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/json.h"
#include "common/strbuf.h"

static void test_addf_matches_snprintf(void **state)
{
	struct strbuf b = { 0 };
	char *want = calloc(1, 1 << 20);
	size_t wl = 0;
	char big[3000];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	assert_non_null(want);
	for (int i = 0; i < 5000; i++) {
		/* short items mostly, a long one now and then: both paths of addf */
		if (i % 997 == 0) {
			strbuf__addf(&b, "<%s>", big);
			wl += (size_t)snprintf(want + wl, (1 << 20) - wl, "<%s>", big);
		} else {
			strbuf__addf(&b, "%d:%s;", i, i % 3 ? "ab" : "");
			wl += (size_t)snprintf(want + wl, (1 << 20) - wl, "%d:%s;", i, i % 3 ? "ab" : "");
		}
	}
	assert_int_equal(b.err, 0);
	assert_int_equal(b.len, wl);
	assert_int_equal(strlen(b.s), wl);
	assert_memory_equal(b.s, want, wl);
	strbuf__free(&b);
	free(want);
}

static void test_add_hex(void **state)
{
	static const uint64_t v[] = { 0, 1, 0xf, 0x10, 0xdeadbeef, 0x7fffffffffffffffull,
				      0xffffffffffffffffull, 0x55d0c0ffee12ull };
	struct strbuf b = { 0 };
	char want[512];
	size_t wl = 0;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		strbuf__add_hex(&b, i % 2 ? ' ' : ',', v[i]);
		wl += (size_t)snprintf(want + wl, sizeof(want) - wl, "%c%" PRIx64, i % 2 ? ' ' : ',', v[i]);
	}
	assert_int_equal(b.len, wl);
	assert_string_equal(b.s, want);
	strbuf__free(&b);
}

/* One escaper: strbuf's JSON strings are the JSON writer's, byte for byte. */
static void test_json_str_matches_writer(void **state)
{
	static const char *in[] = { "", "plain", "a\nb\r\tc", "q\"\\", "\x01\x1f\x7f",
				    "\xff\xc3\xa9\xed\xa0\x80", "\xf0\x9f\x98\x80x" };
	struct strbuf b = { 0 };
	struct json j;

	json__init(&j);
	json__arr_begin(&j);
	strbuf__add(&b, "[", 1);
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		json__str(&j, in[i]);
		if (i)
			strbuf__add(&b, ",", 1);
		strbuf__add_json_str(&b, in[i]);
	}
	json__arr_end(&j);
	strbuf__add(&b, "]", 1);
	assert_string_equal(b.s, j.buf);
	assert_non_null(strstr(b.s, "\"a\\nb\\r\\tc\""));
	strbuf__free(&b);
	json__free(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addf_matches_snprintf),
		cmocka_unit_test(test_add_hex),
		cmocka_unit_test(test_json_str_matches_writer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
