/* The subcommand table: one entry per subcommand, read by dispatch, --help and usage errors. */
#include <stddef.h>
#include <string.h>

#include "cli/cmd.h"

const struct cmd cmds[] = {
	{ "query", cmd_query, "probex query [--no-header] FILE SQL", "run SQL on a trace (table: events)" },
	{ "recover", cmd_recover, "probex recover SPOOL [-o OUTPUT] [--run-rows N] [-v]",
	  "finish a trace whose recorder was killed" },
	{ "resymbolize", cmd_resymbolize, "probex resymbolize FILE [-o OUTPUT]",
	  "redo the stack labels from the raw addresses kept in the file" },
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
