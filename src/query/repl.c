#include <editline/readline.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/strbuf.h"
#include "query/repl.h"

#define HISTORY_LINES 1000

int repl__exec(duckdb_connection con, const char *sql, enum result_fmt fmt, bool header,
	       const char *label)
{
	duckdb_result res;
	int ret = 0;

	if (duckdb_query(con, sql, &res) == DuckDBError) {
		log__error("%s%s%s", label ? label : "", label ? ": " : "", duckdb_result_error(&res));
		ret = 1;
	} else if (result__print(&res, stdout, fmt, header)) {
		log__error("out of memory printing the result");
		ret = 1;
	}
	duckdb_destroy_result(&res);
	fflush(stdout);
	return ret;
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
