/* crc32c: the standard check value, the instruction and the table agreeing on every length
 * and alignment (the instruction's head, 8-byte body and tail), and continuation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/crc32c.h"

static void test_check_value(void **state)
{
	/* The CRC-32C catalogue's check value, and RFC 3720's 32 bytes of zeros. */
	static const unsigned char zeros[32];

	assert_int_equal(crc32c(0, "123456789", 9), 0xe3069283u);
	assert_int_equal(crc32c__table(0, "123456789", 9), 0xe3069283u);
	assert_int_equal(crc32c(0, zeros, sizeof(zeros)), 0x8a9136aau);
	assert_int_equal(crc32c(0, "", 0), 0);
}

static void test_instruction_matches_table(void **state)
{
	unsigned char buf[600];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	for (size_t off = 0; off < 9; off++)
		for (size_t len = 0; len + off <= sizeof(buf); len += len < 40 ? 1 : 37)
			assert_int_equal(crc32c(0, buf + off, len), crc32c__table(0, buf + off, len));
}

static void test_continuation(void **state)
{
	const char *s = "the quick brown fox jumps over the lazy dog";
	size_t n = strlen(s);

	for (size_t cut = 0; cut <= n; cut++)
		assert_int_equal(crc32c(crc32c(0, s, cut), s + cut, n - cut), crc32c(0, s, n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_value),
		cmocka_unit_test(test_instruction_matches_table),
		cmocka_unit_test(test_continuation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
