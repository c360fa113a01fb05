/* probex's subcommands, dispatched from one table (bpftool's cmds[] model).  Each runs
 * with argv[0] = its own name and returns the process exit status. */
#ifndef PROBEX_CLI_CMD_H
#define PROBEX_CLI_CMD_H

struct probex_opts;

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;	/* "probex NAME ARGS", for --help and usage errors */
	const char *summary;	/* one line */
};

/* Every subcommand, ending with { NULL }. */
extern const struct cmd cmds[];

int cmd_export(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_resymbolize(int argc, char **argv);
int cmd_sql(int argc, char **argv);
int cmd_synth(int argc, char **argv);

/* The default command: record COMMAND, then view the trace (or only view: --view). */
int cmd_record(const struct probex_opts *o);
int cmd_view(const struct probex_opts *o);

/* The usage line of a subcommand by name. */
const char *cmd__usage(const char *name);

#endif
