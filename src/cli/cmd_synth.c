/* `probex synth -o FILE [...]`: a deterministic synthetic trace for benchmarks. */
#include <getopt.h>
#include <stdio.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "common/outfile.h"
#include "synth/synth.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: %s\n"
		"  Write a synthetic trace in the probex 0.1 format, identical for equal arguments.\n"
		"  --events N       rows (default 1000000)\n"
		"  --seed S         workload seed (default 1)\n"
		"  --duration-ms MS trace length (default: 3 us per event)\n"
		"  --sample-freq HZ probex.sample_freq_hz metadata (default 1999)\n"
		"  --lost-ppm P     drop P per million syscall rows, as a lossy recorder would\n"
		"  --row-group-size N  Parquet rows per row group (default 122880; probex\n"
		"                   0.1 wrote 1048576)\n"
		"  --force          replace an existing FILE (default: keep it as FILE.old)\n", cmd__usage("synth"));
}

int cmd_synth(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' }, { "events", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' }, { "duration-ms", required_argument, NULL, 'd' },
		{ "sample-freq", required_argument, NULL, 'f' }, { "lost-ppm", required_argument, NULL, 'l' },
		{ "row-group-size", required_argument, NULL, 'g' },
		{ "force", no_argument, NULL, 'F' }, { "help", no_argument, NULL, 'h' }, { 0 },
	};
	struct synth_opts o = {
		.events = 1000000, .seed = 1, .sample_freq = 1999, .row_group_rows = 122880,
	};
	int c, err = 0;

	optind = 1;
	while (!err && (c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o.output = optarg; break;
		case 'F': o.force = true; break;
		case 'n': err = args__u64("--events", optarg, 0, 1ull << 32, &o.events); break;
		case 's': err = args__u64("--seed", optarg, 0, UINT64_MAX, &o.seed); break;
		case 'd': err = args__u64("--duration-ms", optarg, 0, UINT64_MAX / 1000000, &o.duration_ms); break;
		case 'f': err = args__u64("--sample-freq", optarg, 1, UINT64_MAX, &o.sample_freq); break;
		case 'l': err = args__u64("--lost-ppm", optarg, 0, 1000000, &o.lost_ppm); break;
		case 'g': err = args__u64("--row-group-size", optarg, 1, 1u << 24, &o.row_group_rows); break;
		case 'h': usage(); return 0;
		default: usage(); return EXIT_USAGE;
		}
	}
	if (err)
		return EXIT_USAGE;
	if (!o.output || optind != argc) {
		usage();
		return EXIT_USAGE;
	}
	if (outfile__check(o.output))
		return 1;
	return synth__write(&o) ? 1 : 0;
}
