/* `probex recover SPOOL [-o OUTPUT]`: turn a spool left by an interrupted recording into
 * a trace of everything it captured. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "common/log.h"
#include "common/outfile.h"
#include "finalize/finalize.h"
#include "finalize/runs.h"
#include "spool/spool.h"
#include "symbolize/ksym.h"

/* Kernel addresses are only meaningful on the machine and boot that recorded them; the
 * spool carries no symbols, so read this kernel's (correct when recovering right after a
 * crash, which is the point).  Root only: kallsyms shows zeros to others. */
static struct ksyms *ksyms;

int cmd_recover_as_root(void)
{
	if (geteuid() == 0)
		ksyms = ksyms__load(NULL);
	return 0;
}

int cmd_recover(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' }, { "verbose", no_argument, NULL, 'v' },
		{ "force", no_argument, NULL, 'f' }, { "run-rows", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' }, { 0 },
	};
	struct finalize_result res;
	struct finalize_opts fo = { 0 };
	const char *spool, *out = NULL;
	char def[4096];
	size_t n, sn = strlen(SPOOL_SUFFIX);
	int c, err, verbose = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:vf", longopts, NULL)) != -1) {
		char *end;

		if (c == 'h') {
			return cmd__help("recover");
		} else if (c == 'o') {
			out = optarg;
		} else if (c == 'f') {
			fo.force = true;
		} else if (c == 'r') {
			/* Rows per sorted run: less memory, more runs spilled next to the output. */
			errno = 0;
			fo.run_rows = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || fo.run_rows < RUNS_MIN_ROWS)
				return args__usage_error("recover", cmd__usage("recover"),
							 "--run-rows: expected a number of rows, at least %u",
							 RUNS_MIN_ROWS);
		} else if (c == 'v') {
			verbose++;
		} else {
			return args__usage_error("recover", cmd__usage("recover"), "bad option %s", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return args__usage_error("recover", cmd__usage("recover"), "expected one SPOOL");
	args__verbosity(verbose, 0);
	spool = argv[optind];
	if (!out) {
		n = strlen(spool);
		if (n <= sn || strcmp(spool + n - sn, SPOOL_SUFFIX)) {
			log__error("%s: cannot derive an output name; give one with -o", spool);
			return EXIT_USAGE;
		}
		snprintf(def, sizeof(def), "%.*s", (int)(n - sn), spool);
		out = def;
	}
	if (access(spool, R_OK)) {
		log__error("%s: %s", spool, strerror(errno));
		return 1;
	}
	if (outfile__check(out))
		return 1;
	fo.spool = spool;
	fo.output = out;
	fo.progress = isatty(STDERR_FILENO);
	fo.ksyms = ksyms;
	err = finalize__run(&fo, &res);
	ksyms__free(ksyms);
	ksyms = NULL;
	if (err)
		return 1;
	log__info("recovered %llu events from %s into %s%s", (unsigned long long)res.rows, spool, out,
		  res.torn_tail ? " (the spool was cut short; everything before the cut is kept)" : "");
	return 0;
}
