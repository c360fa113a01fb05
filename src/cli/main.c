/* probex: entry point and subcommand dispatch. */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "cli/options.h"
#include "record/uprobes.h"

static void print_help(void)
{
	opts__print_help();
	printf("\nSubcommands:\n");
	/* A usage too long for its column gets a line of its own, the summary below it. */
	for (const struct cmd *c = cmds; c->name; c++)
		if (strlen(c->usage) <= 42)
			printf("  %-42s %s\n", c->usage, c->summary);
		else
			printf("  %s\n  %-42s %s\n", c->usage, "", c->summary);
}

int main(int argc, char **argv)
{
	struct probex_opts opts;

	/* Fresh pages are very expensive on some VMs (16 us a fault measured here): keep
	 * freed memory in the heap for reuse instead of returning it to the kernel. */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	/* The viewer serves from many libmicrohttpd threads, computing four at a time: a few
	 * arenas are enough, and each extra one would keep its own peak of freed memory. */
	mallopt(M_ARENA_MAX, 4);

	/* Subcommands are only recognised as the very first word; `probex -- query`
	 * always runs a program called query. */
	for (const struct cmd *c = cmds; argc > 1 && c->name; c++)
		if (!strcmp(argv[1], c->name))
			return cmd__run(c, argc - 1, argv + 1);

	switch (opts__parse(&opts, argc, argv)) {
	case OPTS_HELP:
		print_help();
		return 0;
	case OPTS_EXIT_OK:
		return 0;
	case OPTS_USAGE:
		return EXIT_USAGE;
	case OPTS_RUN:
		break;
	}
	args__verbosity(opts.verbose, opts.quiet);
	if (opts.list_probes)
		return uprobes__list(opts.list_probes);
	return opts.view_file ? cmd_view(&opts) : cmd_record(&opts);
}
