/* Console messages: each is exactly one line, whatever text it quotes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>

#include "common/log.h"

static char *captured(void (*emit)(void))
{
	FILE *saved = stderr;
	char *buf = NULL;
	size_t len = 0;

	stderr = open_memstream(&buf, &len);
	assert_non_null(stderr);
	emit();
	fclose(stderr);
	stderr = saved;
	return buf;
}

static void emit_duckdb_style(void)
{
	log__error("%s: cannot read: %s", "/t/x.parquet",
		   "Invalid Input Error: No magic bytes found at end of file '/t/x.parquet'\n\n"
		   "LINE 1: SELECT * FROM read_parquet('/t/x.parquet')\n"
		   "                      ^");
}

static void emit_plain(void)
{
	log__warn("two  spaces\tand a tab stay");
	log__error("trailing newline\n");
	log__error("\r\nleading and crlf\r\nin the middle");
}

static void test_multiline_text_is_folded(void **state)
{
	char *s = captured(emit_duckdb_style);

	assert_string_equal(s, "probex: error: /t/x.parquet: cannot read: Invalid Input Error: No magic "
			       "bytes found at end of file '/t/x.parquet' LINE 1: SELECT * FROM "
			       "read_parquet('/t/x.parquet') ^\n");
	free(s);
}

static void test_single_lines_unchanged(void **state)
{
	char *s = captured(emit_plain);

	assert_string_equal(s, "probex: warning: two  spaces\tand a tab stay\n"
			       "probex: error: trailing newline\n"
			       "probex: error: leading and crlf in the middle\n");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_multiline_text_is_folded),
		cmocka_unit_test(test_single_lines_unchanged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
