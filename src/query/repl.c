#include <editline/readline.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/strbuf.h"
#include "query/repl.h"

#define HISTORY_LINES 1000

/* Run every statement of sql, the last one into a streaming *res (so a large result
 * is never materialized).  NULL, or DuckDB's error (to free). */
static char *run(duckdb_connection con, const char *sql, duckdb_result *res, bool *have_res)
{
	duckdb_extracted_statements st = NULL;
	char *err = NULL;
	idx_t n;

	*have_res = false;
	n = duckdb_extract_statements(con, sql, &st);
	if (!n && duckdb_extract_statements_error(st))
		err = strdup(duckdb_extract_statements_error(st));
	for (idx_t i = 0; i < n && !err; i++) {
		duckdb_prepared_statement ps = NULL;
		duckdb_pending_result pend = NULL;

		if (duckdb_prepare_extracted_statement(con, st, i, &ps) == DuckDBError) {
			err = strdup(duckdb_prepare_error(ps));
		} else if (i + 1 < n) {
			if (duckdb_execute_prepared(ps, res) == DuckDBError)
				err = strdup(duckdb_result_error(res));
			duckdb_destroy_result(res);
		} else if (duckdb_pending_prepared_streaming(ps, &pend) == DuckDBError) {
			err = strdup(duckdb_pending_error(pend));
		} else {
			if (duckdb_execute_pending(pend, res) == DuckDBError)
				err = strdup(duckdb_result_error(res));
			*have_res = !err;
			if (err)
				duckdb_destroy_result(res);
		}
		duckdb_destroy_pending(&pend);
		duckdb_destroy_prepare(&ps);
	}
	duckdb_destroy_extracted(&st);
	return err;
}

int repl__exec(duckdb_connection con, const char *sql, enum result_fmt fmt, bool header,
	       const char *label)
{
	bool have_res;
	duckdb_result res;
	char *err = run(con, sql, &res, &have_res);
	int ret = 0;

	if (!err && have_res) {
		ret = result__print(&res, stdout, fmt, header);
		if (ret == -EIO)
			err = strdup(duckdb_result_error(&res));
		else if (ret)
			err = strdup("out of memory printing the result");
	}
	if (have_res)
		duckdb_destroy_result(&res);
	fflush(stdout);
	if (err || ret) {
		log__error("%s%s%s", label ? label : "", label ? ": " : "", err ? err : "out of memory");
		free(err);
		return 1;
	}
	return 0;
}

/* A statement is complete when its last non-blank character is ';'. */
static bool complete(const struct strbuf *b)
{
	size_t n = b->len;

	while (n && strchr(" \t\r\n", b->s[n - 1]))
		n--;
	return n && b->s[n - 1] == ';';
}

static void history_path(char *buf, size_t size)
{
	const char *home = getenv("HOME");

	buf[0] = 0;
	if (home && *home)
		snprintf(buf, size, "%s/.probex_history", home);
}

static void help(void)
{
	puts("SQL ends with ';' and may span lines.  Views: events (one row per event),\n"
	     "metadata (key, value).  .schema shows the columns, .quit or Ctrl-D leaves.");
}

/* A dot command on an empty buffer; true when it was one. */
static bool dot_command(duckdb_connection con, const char *line, enum result_fmt fmt, bool *quit)
{
	if (line[0] != '.')
		return false;
	if (!strcmp(line, ".quit") || !strcmp(line, ".exit"))
		*quit = true;
	else if (!strcmp(line, ".schema"))
		repl__exec(con, "SELECT column_name, column_type FROM (DESCRIBE events)", fmt, true, NULL);
	else
		help();
	return true;
}

int repl__run(duckdb_connection con, enum result_fmt fmt, const char *banner)
{
	struct strbuf stmt = { 0 };
	char hist[PATH_MAX];
	bool quit = false;
	char *line;

	history_path(hist, sizeof(hist));
	stifle_history(HISTORY_LINES);
	if (hist[0])
		read_history(hist);
	printf("%s\nEnter SQL ending with ';' (.help for help, Ctrl-D to quit).\n", banner);
	while (!quit && (line = readline(stmt.len ? "   ...> " : "probex> "))) {
		if (!stmt.len && (!line[0] || dot_command(con, line, fmt, &quit))) {
			free(line);
			continue;
		}
		if (stmt.len)
			strbuf__add(&stmt, "\n", 1);
		strbuf__add(&stmt, line, strlen(line));
		free(line);
		if (stmt.err || !complete(&stmt))
			continue;
		add_history(stmt.s);
		repl__exec(con, stmt.s, fmt, true, NULL);
		stmt.len = 0;
	}
	if (!quit)
		putchar('\n');
	if (hist[0])
		write_history(hist);
	strbuf__free(&stmt);
	return 0;
}
