/* The subcommand table: one entry per subcommand, read by dispatch, --help and usage errors. */
#include <stddef.h>
#include <string.h>

#include "cli/cmd.h"

const struct cmd cmds[] = {
	{ "export", cmd_export, "probex export FILE --format folded|speedscope|chrome|pprof "
	  "[--event-type T] [--pid P] [-o OUT]", "stacks or the timeline in other tools' formats" },
	{ "query", cmd_sql, "probex query [--no-header] FILE|GLOB [SQL]",
	  "alias of sql with tab-separated output" },
	{ "recover", cmd_recover, "probex recover SPOOL [-o OUTPUT] [-v]",
	  "finish a trace whose recorder was killed" },
	{ "report", cmd_report, "probex report FILE [--json] [--pid P] [--start T] [--end T] "
	  "[-e TYPE] [--inverted] [--top N]", "terminal summary (processes, syscalls, stacks, ...)" },
	{ "resymbolize", cmd_resymbolize, "probex resymbolize FILE [-o OUTPUT]",
	  "redo stack labels from the raw addresses in the file" },
	{ "sql", cmd_sql, "probex sql [--csv|--json|--tsv] [--no-header] FILE|GLOB [SQL]",
	  "DuckDB SQL over traces; a prompt without SQL" },
	{ "synth", cmd_synth, "probex synth -o FILE [--events N] [--seed S] ...",
	  "write a deterministic synthetic trace" },
	{ NULL },
};

const char *cmd__usage(const char *name)
{
	for (const struct cmd *c = cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c->usage;
	return "probex [OPTIONS] [--] COMMAND [ARGS...]";
}
