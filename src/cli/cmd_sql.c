/* `probex sql [--csv|--json|--tsv] [--no-header] FILE|GLOB [SQL]`: DuckDB SQL over one
 * trace or many.  Without SQL it reads statements from stdin, or prompts on a terminal.
 * `probex query` is the same command with tab-separated output, as scripts expect. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "query/repl.h"
#include "query/tracedb.h"

static int read_stdin(struct strbuf *b)
{
	char buf[65536];
	size_t n;

	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
		strbuf__add(b, buf, n);
	return b->err;
}

static int run(const char *arg, const char *sql, enum result_fmt fmt, bool header)
{
	struct strbuf in = { 0 };
	struct trace_db t;
	char banner[512];
	int ret = 1;

	if (trace_db__open(&t, arg))
		return 1;
	if (sql) {
		ret = repl__exec(t.con, sql, fmt, header, arg);
	} else if (isatty(STDIN_FILENO)) {
		snprintf(banner, sizeof(banner), "probex sql: %s (%d file%s)", arg, t.nfiles,
			 t.nfiles == 1 ? "" : "s");
		ret = repl__run(t.con, fmt, banner);
	} else if (read_stdin(&in) || !in.s) {
		log__error("no SQL given (on the command line or stdin)");
	} else {
		ret = repl__exec(t.con, in.s, fmt, header, arg);
	}
	strbuf__free(&in);
	trace_db__close(&t);
	return ret;
}

int cmd_sql(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "csv", no_argument, NULL, 'c' },   { "json", no_argument, NULL, 'j' },
		{ "tsv", no_argument, NULL, 't' },   { "table", no_argument, NULL, 'T' },
		{ "no-header", no_argument, NULL, 'H' }, { "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *name = argv[0];
	/* query's output stays tab-separated: scripts read it with cut and read. */
	enum result_fmt fmt = strcmp(name, "query") ? RESULT_TABLE : RESULT_TSV;
	bool header = true;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': fmt = RESULT_CSV; break;
		case 'j': fmt = RESULT_JSON; break;
		case 't': fmt = RESULT_TSV; break;
		case 'T': fmt = RESULT_TABLE; break;
		case 'H': header = false; break;
		case 'h':
			return cmd__help(name);
		default:
			return args__usage_error(name, cmd__usage(name), "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind < 1 || argc - optind > 2)
		return args__usage_error(name, cmd__usage(name), "expected FILE|GLOB and optional SQL");
	return run(argv[optind], argc - optind == 2 ? argv[optind + 1] : NULL, fmt, header);
}
