/* The trace schema table is the one source of the file's columns: the README's column
 * list must name exactly its columns (the 0.1 format's, in file order, then probex's own in
 * its table), and the Parquet writer's column list must be derived from it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>

#include "trace/schema.h"

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* The next `name` in [*p, end), or NULL; *p moves past it. */
static const char *next_tick(const char **p, const char *end, int *len)
{
	const char *a = memchr(*p, '`', (size_t)(end - *p)), *b;

	if (!a || !(b = memchr(a + 1, '`', (size_t)(end - a - 1))))
		return NULL;
	*len = (int)(b - a - 1);
	*p = b + 1;
	return a + 1;
}

static int column_of(const char *name, int len)
{
	for (int i = 0; i < TC__COUNT; i++)
		if ((int)strlen(trace_schema[i].name) == len && !memcmp(trace_schema[i].name, name, len))
			return i;
	return -1;
}

static void test_readme_lists_the_schema(void **state)
{
	char *readme = read_file("README.md");
	const char *sec = strstr(readme, "\n## The trace file"), *p, *end, *name;
	int listed[TC__COUNT] = { 0 }, nref = 0, len, col, want = 0;
	char intro[64];

	assert_non_null(sec);
	for (int i = 0; i < TC__COUNT; i++)
		nref += trace_schema[i].reference;
	snprintf(intro, sizeof(intro), "the 0.1 format's %d columns first (", nref);
	p = strstr(sec, intro);
	assert_non_null(p);
	p += strlen(intro);
	end = strstr(p, "), with separate");
	assert_non_null(end);
	/* The 0.1 format's columns, in file order (the parenthesis also names `pid`'s meaning
	 * in plain words, never in backticks). */
	while ((name = next_tick(&p, end, &len))) {
		while (want < TC__COUNT && !trace_schema[want].reference)
			want++;
		col = column_of(name, len);
		if (col != want)
			fail_msg("README lists `%.*s` where the schema has `%s`", len, name,
				 want < TC__COUNT ? trace_schema[want].name : "(end)");
		listed[col]++;
		want++;
	}
	/* probex's own columns: the first cell of each row of the next table. */
	for (p = strstr(end, "\n| `"); p && !strncmp(p, "\n| `", 4); p = strchr(p + 1, '\n')) {
		const char *cell = p + 3, *cell_end = strchr(cell, '|');

		while ((name = next_tick(&cell, cell_end, &len))) {
			col = column_of(name, len);
			if (col < 0 || trace_schema[col].reference)
				fail_msg("README's added-column table lists `%.*s`, not an added column",
					 len, name);
			listed[col]++;
		}
	}
	for (int i = 0; i < TC__COUNT; i++)
		if (!listed[i])
			fail_msg("README does not list column `%s`", trace_schema[i].name);
	free(readme);
}

static void test_writer_columns_come_from_the_table(void **state)
{
	const struct pq_column_def *pq = trace_schema__pq_columns();

	for (int i = 0; i < TC__COUNT; i++) {
		assert_string_equal(pq[i].name, trace_schema[i].name);
		assert_int_equal(pq[i].type, trace_schema[i].type);
		assert_int_equal(pq[i].required, trace_schema[i].required);
		assert_int_equal(pq[i].delta, trace_schema[i].delta);
		assert_non_null(trace_schema[i].doc);
		for (int j = 0; j < i; j++)
			if (!strcmp(trace_schema[i].name, trace_schema[j].name))
				fail_msg("column `%s` twice", trace_schema[i].name);
	}
	/* The reference's columns come first: readers index them by position. */
	for (int i = 1; i < TC__COUNT; i++)
		assert_false(trace_schema[i].reference && !trace_schema[i - 1].reference);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_readme_lists_the_schema),
		cmocka_unit_test(test_writer_columns_come_from_the_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
