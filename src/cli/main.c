/* probex: entry point and subcommand dispatch. */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cli/options.h"
#include "common/log.h"
#include "common/priv.h"
#include "record/record.h"
#include "trace/query.h"
#include "trace/recover.h"
#include "trace/resymbolize.h"
#include "trace/synth.h"
#include "viewer/viewer.h"

static int view_main(const struct probex_opts *o)
{
	struct viewer_opts vo = { .bind = o->bind, .port = o->port };
	struct priv_target priv;
	int err;

	if (priv__resolve(&priv))
		return 1;
	/* The viewer never needs root: become the invoking user before touching the file. */
	err = priv__drop(&priv);
	if (err) {
		log__error("failed to drop privileges to uid %u: %s", priv.uid, strerror(-err));
		return 1;
	}
	return viewer__main(o->view_file, &vo);
}

int main(int argc, char **argv)
{
	struct probex_opts opts;
	struct priv_target priv;

	/* Fresh pages are very expensive on some VMs (16 us a fault measured here): keep
	 * freed memory in the heap for reuse instead of returning it to the kernel. */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	/* The viewer serves from many libmicrohttpd threads, computing four at a time: a few
	 * arenas are enough, and each extra one would keep its own peak of freed memory. */
	mallopt(M_ARENA_MAX, 4);

	/* Subcommands are only recognised as the very first word; `probex -- query`
	 * always runs a program called query. */
	if (argc > 1 && !strcmp(argv[1], "query"))
		return query__main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "recover"))
		return recover__main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "resymbolize"))
		return resymbolize__main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "synth"))
		return synth__main(argc - 1, argv + 1);

	switch (opts__parse(&opts, argc, argv)) {
	case OPTS_EXIT_OK:
		return 0;
	case OPTS_USAGE:
		return 2;
	case OPTS_RUN:
		break;
	}
	log_verbosity = opts.quiet ? 0 : 1 + opts.verbose;

	if (opts.view_file)
		return view_main(&opts);
	if (priv__resolve(&priv))
		return 1;
	return record__main(&opts, &priv);
}
