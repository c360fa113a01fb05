/* `probex resymbolize FILE [-o OUTPUT]`: redo a trace's user-space stack labels. */
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "common/outfile.h"
#include "finalize/resymbolize.h"

int cmd_resymbolize(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' }, { "force", no_argument, NULL, 'f' }, { 0 },
	};
	const char *out = NULL;
	bool force = false;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:f", longopts, NULL)) != -1) {
		if (c == 'f')
			force = true;
		else if (c == 'o')
			out = optarg;
		else
			return args__usage_error("resymbolize", cmd__usage("resymbolize"), "bad option %s",
						 argv[optind - 1]);
	}
	if (argc - optind != 1)
		return args__usage_error("resymbolize", cmd__usage("resymbolize"), "expected one FILE");
	if (outfile__check(out ? out : argv[optind]))
		return 1;
	return resymbolize__run(argv[optind], out ? out : argv[optind], force) ? 1 : 0;
}
