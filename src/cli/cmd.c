/* The subcommand table: one entry per subcommand, read by dispatch, --help and usage errors. */
#include <stddef.h>
#include <string.h>

#include "cli/cmd.h"
#include "common/priv.h"

const struct cmd cmds[] = {
	{ "export", cmd_export, "probex export FILE --format folded|speedscope|chrome|pprof "
	  "[--event-type T] [--pid P] [-o OUT]", "stacks or the timeline in other tools' formats" },
	{ "query", cmd_sql, "probex query [--no-header] FILE|GLOB [SQL]",
	  "alias of sql with tab-separated output" },
	{ "recover", cmd_recover, "probex recover SPOOL [-o OUTPUT] [--force] [--run-rows N] [-v]",
	  "finish a trace whose recorder was killed" },
	{ "report", cmd_report, "probex report FILE [--json] [--pid P] [--start T] [--end T] "
	  "[-e TYPE] [--inverted] [--top N]\n"
	  "         [--critical-path [--tid T]]",
	  "terminal summary (processes, syscalls, stacks, ...)" },
	{ "resymbolize", cmd_resymbolize, "probex resymbolize FILE [-o OUTPUT] [--force] [-v] [--no-cache]",
	  "redo stack labels from the raw addresses in the file" },
	{ "sql", cmd_sql, "probex sql [--csv|--json|--tsv] [--no-header] FILE|GLOB [SQL]",
	  "DuckDB SQL over traces; a prompt without SQL" },
	{ "synth", cmd_synth, "probex synth -o FILE [--force] [--events N] [--seed S] ...",
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
