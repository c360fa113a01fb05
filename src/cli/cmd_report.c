/* `probex report FILE [--json] [--pid P] [--start T] [--end T] [--event-type T]
 * [--inverted] [--top N] [--critical-path [--tid T]]`: a terminal summary of a trace. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "report/report.h"
#include "trace/schema.h"

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },	   { "pid", required_argument, NULL, 'p' },
		{ "start", required_argument, NULL, 's' }, { "end", required_argument, NULL, 'E' },
		{ "event-type", required_argument, NULL, 'e' }, { "inverted", no_argument, NULL, 'i' },
		{ "top", required_argument, NULL, 'n' },   { "help", no_argument, NULL, 'h' },
		{ "critical-path", no_argument, NULL, 'C' }, { "tid", required_argument, NULL, 'T' },
		{ 0 },
	};
	struct report_opts o = { .event_type = "cpu_sample", .top = 20 };
	const char *usage = cmd__usage("report");
	struct progress prog;
	unsigned long v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "jp:e:in:hCT:", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': o.json = true; break;
		case 'i': o.inverted = true; break;
		case 'C': o.critical_path = true; break;
		case 'T':
			if (args__ulong("--tid", optarg, 1, UINT32_MAX, &v))
				return EXIT_USAGE;
			o.has_tid = true;
			o.tid = (uint32_t)v;
			break;
		case 'e': o.event_type = optarg; break;
		case 'p':
			if (args__ulong("--pid", optarg, 1, UINT32_MAX, &v))
				return EXIT_USAGE;
			o.has_pid = true;
			o.pid = (uint32_t)v;
			break;
		case 'n':
			if (args__ulong("--top", optarg, 1, 100000, &v))
				return EXIT_USAGE;
			o.top = (unsigned int)v;
			break;
		case 's':
			if (args__duration_ns("--start", optarg, &o.start_ns))
				return EXIT_USAGE;
			o.has_start = true;
			break;
		case 'E':
			if (args__duration_ns("--end", optarg, &o.end_ns))
				return EXIT_USAGE;
			o.has_end = true;
			break;
		case 'h': return cmd__help("report");
		default: return args__usage_error("report", usage, "unknown option or missing value '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return args__usage_error("report", usage, "expected one FILE");
	if (!event_type__valid(o.event_type))
		return args__usage_error("report", usage, "unknown event type '%s'", o.event_type);
	if (o.has_start && o.has_end && o.end_ns < o.start_ns)
		return args__usage_error("report", usage, "--end is before --start");
	progress__init(&prog, isatty(STDERR_FILENO), "report", REPORT_SECTIONS);
	o.progress = &prog;
	if (o.has_tid && !o.critical_path)
		return args__usage_error("report", usage, "--tid goes with --critical-path");
	if (o.critical_path ? report__critical_path(argv[optind], &o, stdout) : report__run(argv[optind], &o, stdout))
		return 1;
	return fflush(stdout) ? 1 : 0;
}
