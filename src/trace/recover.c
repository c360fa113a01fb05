#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "trace/finalize.h"
#include "trace/recover.h"
#include "symbolize/ksym.h"

#define SPOOL_SUFFIX ".probex-spool"

int recover__main(int argc, char **argv)
{
	struct finalize_result res;
	struct finalize_opts fo = { 0 };
	const char *spool = NULL, *out = NULL;
	char def[4096];
	size_t n;
	int err;

	for (int i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "-v"))
			log_verbosity = 2;
		else if (argv[i][0] == '-' || spool)
			goto usage;
		else
			spool = argv[i];
	}
	if (!spool)
		goto usage;
	if (!out) {
		n = strlen(spool);
		if (n <= strlen(SPOOL_SUFFIX) || strcmp(spool + n - strlen(SPOOL_SUFFIX), SPOOL_SUFFIX)) {
			log__error("%s: cannot derive an output name; give one with -o", spool);
			return 2;
		}
		snprintf(def, sizeof(def), "%.*s", (int)(n - strlen(SPOOL_SUFFIX)), spool);
		out = def;
	}
	if (access(spool, R_OK)) {
		log__error("%s: %s", spool, strerror(errno));
		return 1;
	}
	fo.spool = spool;
	fo.output = out;
	fo.progress = isatty(STDERR_FILENO);
	/* Kernel addresses are only meaningful on the machine and boot that recorded them;
	 * the spool carries no symbols, so read this kernel's (correct when recovering
	 * right after a crash, which is the point). */
	fo.ksyms = geteuid() == 0 ? ksyms__load(NULL) : NULL;
	err = finalize__run(&fo, &res);
	ksyms__free((struct ksyms *)fo.ksyms);
	if (err)
		return 1;
	log__info("recovered %llu events from %s into %s%s", (unsigned long long)res.rows, spool, out,
		  res.torn_tail ? " (the spool was cut short; everything before the cut is kept)" : "");
	return 0;
usage:
	fprintf(stderr, "usage: probex recover SPOOL [-o OUTPUT]\n");
	return 2;
}
