/* The subcommand table: one entry per subcommand, read by dispatch, --help and usage errors. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "common/priv.h"

static const char sql_options[] =
	"  --csv, --json, --tsv    output format (default: an aligned table; query: --tsv)\n"
	"  --table                 an aligned table\n"
	"  --no-header             no header line\n"
	"  FILE|GLOB               one trace, or several as one (a `file` column says which)\n"
	"  SQL                     the query (else from stdin, or a prompt on a terminal);\n"
	"                          the rows are in the view `events`\n";

const struct cmd cmds[] = {
	{ "diff", cmd_diff, "probex diff BASE NEW [--json|--format folded [-o OUT]] [--pid P] "
	  "[--top N] ...", "compare two traces (CPU, syscalls, off-CPU, processes)", NULL },
	{ "export", cmd_export, "probex export FILE --format folded|speedscope|chrome|pprof "
	  "[--event-type T] [--pid P] [-o OUT]", "stacks or the timeline in other tools' formats",
	  "  -f, --format F          folded (flamegraph.pl), speedscope (ns for CPU and off-CPU),\n"
	  "                          chrome (Perfetto's JSON timeline) or pprof\n"
	  "  -e, --event-type T      whose stacks (default cpu_sample; off_cpu weighs ns blocked)\n"
	  "  -p, --pid P             only process (tgid) or thread P\n"
	  "  -o, --output OUT        write OUT (default stdout; pprof needs one)\n" },
	{ "query", cmd_sql, "probex query [--no-header] FILE|GLOB [SQL]",
	  "alias of sql with tab-separated output", sql_options },
	{ "recover", cmd_recover, "probex recover SPOOL [-o OUTPUT] [--force] [--run-rows N] [-v]",
	  "finish a trace whose recorder was killed",
	  "  -o, --output OUTPUT     the trace to write (default: SPOOL without its suffix)\n"
	  "  -f, --force             replace OUTPUT (default: keep it as OUTPUT.old)\n"
	  "  --run-rows N            rows per sorted run: less memory, more runs spilled\n"
	  "  -v                      more detail on stderr (twice: debug)\n" },
	{ "report", cmd_report, "probex report FILE [--json] [--pid P] [--start T] [--end T] "
	  "[-e TYPE] [--inverted] [--top N]\n"
	  "         [--critical-path [--tid T]]",
	  "terminal summary (processes, syscalls, stacks, ...)",
	  "  --json                  one JSON object, raw numbers (ns, bytes, fractions)\n"
	  "  -p, --pid P             only process P (all its threads) or thread P\n"
	  "  --start T, --end T      only rows from T after the first event (until T): 1.5\n"
	  "                          (seconds), 250ms, 10us, 100ns\n"
	  "  -e, --event-type TYPE   whose stacks the function tables show (default cpu_sample)\n"
	  "  -i, --inverted          callers of the top functions instead of their callees\n"
	  "  -n, --top N             rows per table (default 20)\n"
	  "  -C, --critical-path     where a thread's wall-clock time went, through its wakers\n"
	  "  -T, --tid T             with --critical-path: that thread (default the command's)\n" },
	{ "resymbolize", cmd_resymbolize, "probex resymbolize FILE [-o OUTPUT] [--force] [-v] [--no-cache]",
	  "redo stack labels from the raw addresses in the file",
	  "  -o, --output OUTPUT     write OUTPUT (default: FILE itself)\n"
	  "  -f, --force             replace an existing OUTPUT\n"
	  "  -v                      more detail on stderr (twice: debug)\n"
	  "  --no-cache              ignore the symbol cache\n" },
	{ "sql", cmd_sql, "probex sql [--csv|--json|--tsv] [--no-header] FILE|GLOB [SQL]",
	  "DuckDB SQL over traces; a prompt without SQL", sql_options },
	{ "synth", cmd_synth, "probex synth -o FILE [--force] [--events N] [--seed S] ...",
	  "write a deterministic synthetic trace", NULL },
	{ NULL },
};

int cmd__help(const char *name)
{
	for (const struct cmd *c = cmds; c->name; c++) {
		if (strcmp(c->name, name))
			continue;
		printf("Usage: %s\n\n%s.\n", c->usage, c->summary);
		if (c->options)
			printf("\nOptions:\n%s", c->options);
		return 0;
	}
	return 0;
}

const char *cmd__usage(const char *name)
{
	for (const struct cmd *c = cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c->usage;
	return "probex [OPTIONS] [--] COMMAND [ARGS...]";
}

/* The few steps a subcommand takes as root before dropping: reading kernel facts that
 * only root can read.  Never a path the user named. */
static const struct {
	int (*fn)(int argc, char **argv);
	int (*as_root)(void);
} root_steps[] = {
	{ cmd_recover, cmd_recover_as_root },
};

int cmd__run(const struct cmd *c, int argc, char **argv)
{
	/* Subcommands open the files the user named and start DuckDB (whose SQL can read and
	 * write any path): all of it as the user, never as root. */
	for (size_t i = 0; i < sizeof(root_steps) / sizeof(root_steps[0]); i++)
		if (root_steps[i].fn == c->fn && root_steps[i].as_root())
			return 1;
	if (priv__drop_to_invoker())
		return 1;
	return c->fn(argc, argv);
}
