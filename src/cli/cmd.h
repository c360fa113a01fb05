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
	const char *options;	/* --help: each option on its own line, or NULL */
};

/* Every subcommand, ending with { NULL }. */
extern const struct cmd cmds[];

int cmd_diff(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_resymbolize(int argc, char **argv);
int cmd_sql(int argc, char **argv);
int cmd_synth(int argc, char **argv);

/* The default command: record COMMAND, then view the trace (or only view: --view). */
int cmd_record(const struct probex_opts *o);
int cmd_view(const struct probex_opts *o);

/* Run a subcommand: its as_root step (cmd.c), then the drop to the invoking user (under
 * sudo), then the subcommand itself; returns the exit status. */
int cmd__run(const struct cmd *c, int argc, char **argv);
/* recover's as_root step: this kernel's symbols, read while privileged. */
int cmd_recover_as_root(void);

/* The usage line of a subcommand by name. */
const char *cmd__usage(const char *name);
/* --help of a subcommand: its usage, what it does and its options, on stdout; 0. */
int cmd__help(const char *name);

#endif
