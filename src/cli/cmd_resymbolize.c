/* `probex resymbolize FILE [-o OUTPUT]`: redo a trace's user-space stack labels. */
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "common/outfile.h"
#include "common/log.h"
#include "common/priv.h"
#include "finalize/resymbolize.h"

int cmd_resymbolize(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' }, { "force", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' }, { "no-cache", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' }, { 0 },
	};
	struct priv_target priv;
	const char *out = NULL;
	bool force = false, cache = true;
	int c, verbose = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:fv", longopts, NULL)) != -1) {
		if (c == 'f')
			force = true;
		else if (c == 'o')
			out = optarg;
		else if (c == 'v')
			verbose++;
		else if (c == 'C')
			cache = false;
		else if (c == 'h')
			return cmd__help("resymbolize");
		else
			return args__usage_error("resymbolize", cmd__usage("resymbolize"), "bad option %s",
						 argv[optind - 1]);
	}
	if (argc - optind != 1)
		return args__usage_error("resymbolize", cmd__usage("resymbolize"), "expected one FILE");
	args__verbosity(verbose, 0);
	if (outfile__check(out ? out : argv[optind]))
		return 1;
	/* Already the invoking user (cmd__run dropped): HOME is theirs. */
	if (priv__resolve(&priv))
		return 1;
	if (cache)
		args__symcache(&priv);
	return resymbolize__run(argv[optind], out ? out : argv[optind], force) ? 1 : 0;
}
