/* `probex diff BASE NEW [--json | --format folded [-o FILE]] [--event-type T] [--pid P]
 * [--comm NAME] [--start T] [--end T] [--top N]`: what changed between two recordings. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "diff/diff.h"
#include "trace/schema.h"

static const char options_help[] =
	"  --json                 one JSON object (doc/diff.md lists the fields)\n"
	"  --format text|folded   folded: \"stack BASE NEW\" lines (difffolded.pl)\n"
	"  -o, --output OUT       the folded lines into OUT (kept whole or not at all)\n"
	"  -e, --event-type T     the functions' event type (default cpu_sample)\n"
	"  --pid P, --comm NAME   only that process or thread, or threads of that name\n"
	"  --start T, --end T     only rows from T after each trace's first event (until T)\n"
	"  --top N                rows per section (default 20)\n";

static int parse(int argc, char **argv, struct diff_opts *o, const char *usage)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },	   { "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, 'c' },  { "start", required_argument, NULL, 's' },
		{ "end", required_argument, NULL, 'E' },   { "event-type", required_argument, NULL, 'e' },
		{ "top", required_argument, NULL, 'n' },   { "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' }, { "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned long v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "jp:e:n:f:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': o->r.json = true; break;
		case 'e': o->r.event_type = optarg; break;
		case 'c': o->r.comm = optarg; break;
		case 'o': o->out_path = optarg; break;
		case 'f':
			if (strcmp(optarg, "folded") && strcmp(optarg, "text"))
				return args__usage_error("diff", usage, "unknown format '%s' (text or folded)", optarg);
			o->folded = !strcmp(optarg, "folded");
			break;
		case 'p':
			if (args__ulong("--pid", optarg, 1, UINT32_MAX, &v))
				return EXIT_USAGE;
			o->r.has_pid = true;
			o->r.pid = (uint32_t)v;
			break;
		case 'n':
			if (args__ulong("--top", optarg, 1, 10000000, &v))
				return EXIT_USAGE;
			o->r.top = (unsigned int)v;
			break;
		case 's':
			if (args__duration_ns("--start", optarg, &o->r.start_ns))
				return EXIT_USAGE;
			o->r.has_start = true;
			break;
		case 'E':
			if (args__duration_ns("--end", optarg, &o->r.end_ns))
				return EXIT_USAGE;
			o->r.has_end = true;
			break;
		case 'h': printf("Usage: %s\n%s", usage, options_help); return -1;
		default: return args__usage_error("diff", usage, "unknown option or missing value '%s'", argv[optind - 1]);
		}
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = { .r = { .event_type = "cpu_sample", .top = 20 } };
	const char *usage = cmd__usage("diff");
	int err = parse(argc, argv, &o, usage);

	if (err)
		return err < 0 ? 0 : err;
	if (argc - optind != 2)
		return args__usage_error("diff", usage, "expected two files: BASE NEW");
	if (event_type__id(o.r.event_type) < 0)
		return args__usage_error("diff", usage, "unknown event type '%s'", o.r.event_type);
	if (o.r.has_start && o.r.has_end && o.r.end_ns < o.r.start_ns)
		return args__usage_error("diff", usage, "--end is before --start");
	if (o.out_path && !o.folded)
		return args__usage_error("diff", usage, "-o goes with --format folded");
	if (o.folded && o.r.json)
		return args__usage_error("diff", usage, "--json and --format folded exclude each other");
	if (diff__run(argv[optind], argv[optind + 1], &o, stdout))
		return 1;
	return fflush(stdout) ? 1 : 0;
}
