#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/options.h"
#include "record/syscall_select.h"
#include "trace/schema.h"

enum {
	OPT_NO_VIEWER = 0x100,
	OPT_VIEW,
	OPT_SAMPLE_FREQ,
	OPT_BIND,
	OPT_STACKS,
	OPT_STACK_INTERVAL,
	OPT_RINGBUF,
	OPT_CALL_GRAPH,
	OPT_STACK_COPY,
	OPT_DURATION,
	OPT_MAX_SIZE,
	OPT_RING,
	OPT_VERSION,
	OPT_FORCE,
	OPT_NO_TOKEN,
	OPT_SYSCALLS,
	OPT_OFFCPU_MIN,
	OPT_PID,
	OPT_NO_CACHE,
	OPT_LOSSLESS,
	OPT_PROBE,
	OPT_LIST_PROBES,
	OPT_BASE,
};

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "port", required_argument, NULL, 'p' },
	{ "bind", required_argument, NULL, OPT_BIND },
	{ "no-token", no_argument, NULL, OPT_NO_TOKEN },
	{ "no-viewer", no_argument, NULL, OPT_NO_VIEWER },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
	{ "view", required_argument, NULL, OPT_VIEW },
	{ "base", required_argument, NULL, OPT_BASE },
	{ "sample-freq", required_argument, NULL, OPT_SAMPLE_FREQ },
	{ "stacks", required_argument, NULL, OPT_STACKS },
	{ "stack-interval", required_argument, NULL, OPT_STACK_INTERVAL },
	{ "ringbuf-size", required_argument, NULL, OPT_RINGBUF },
	{ "lossless", no_argument, NULL, OPT_LOSSLESS },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "stack-copy", required_argument, NULL, OPT_STACK_COPY },
	{ "syscalls", required_argument, NULL, OPT_SYSCALLS },
	{ "offcpu-min", required_argument, NULL, OPT_OFFCPU_MIN },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "probe", required_argument, NULL, OPT_PROBE },
	{ "list-probes", required_argument, NULL, OPT_LIST_PROBES },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "ring", required_argument, NULL, OPT_RING },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0 },
};

void opts__print_help(void)
{
	printf("probex " PROBEX_VERSION " — eBPF process tracing tool\n"
	       "\n"
	       "Usage: probex [OPTIONS] [--] COMMAND [ARGS...]\n"
	       "       probex [OPTIONS] --pid PID[,PID...]   (attach until Ctrl-C or they exit)\n"
	       "       probex [OPTIONS] -a [[--] COMMAND...] (whole system)\n"
	       "       probex --view FILE [--base FILE] [-p PORT] [--bind ADDR]\n"
	       "       probex SUBCOMMAND ...       (listed below)\n"
	       "\n"
	       "Runs COMMAND, records through eBPF what it and all its descendants do in the\n"
	       "kernel (syscalls, scheduling, forks, exits, page faults, io_uring, CPU samples\n"
	       "with stacks), writes one Parquet file and opens a local web viewer on it.\n"
	       "\n"
	       "Options:\n"
	       "  -o, --output FILE        Output parquet file (default: probex-YYYYMMDD-HHMMSS.parquet);\n"
	       "                           an existing FILE is kept as FILE.old\n"
	       "      --force              Replace an existing output file instead\n"
	       "  -p, --port PORT          Port for the viewer web interface (default 8080; 0 = any)\n"
	       "      --bind ADDR          Address the viewer listens on (default 127.0.0.1); a\n"
	       "                           non-loopback ADDR requires the token in the printed URL\n"
	       "      --no-token           Serve a non-loopback --bind without a token\n"
	       "      --no-viewer          Don't launch the viewer after tracing\n"
	       "      --no-cache           Don't read or write the symbol cache\n"
	       "                           ($XDG_CACHE_HOME/probex, else ~/.cache/probex)\n"
	       "      --view FILE          View an existing parquet trace file without tracing\n"
	       "      --base FILE          with --view: compare the viewed trace with FILE (the baseline)\n"
	       "      --sample-freq HZ     CPU sampling frequency (default 1999; 99 with --probe)\n"
	       "      --stacks MODE        sampled (default), all, or none: stacks on syscall,\n"
	       "                           page-fault and scheduler events\n"
	       "      --stack-interval US  sampled mode: at most one stack per thread and event\n"
	       "                           type per US microseconds (default 1000)\n"
	       "      --ringbuf-size KIB   kernel→user ring buffer size (default 2048 a CPU, at\n"
	       "                           least 4096)\n"
	       "      --lossless           keep every row: pause COMMAND's processes while the\n"
	       "                           ring buffer fills (not with --pid or -a)\n"
	       "      --call-graph MODE    user stacks of CPU samples: auto (default) or dwarf\n"
	       "                           (stack copy unwound with CFI, frame pointers where\n"
	       "                           an object has no CFI), or fp (frame-pointer walk)\n"
	       "      --stack-copy KIB     dwarf: user stack copied per sample (1-16, default 16)\n"
	       "      --syscalls LIST      syscalls to record (default all): names and classes\n"
	       "                           %%file %%net %%io %%desc %%memory %%process %%signal,\n"
	       "                           comma-separated; `reference` = the ten probex 0.1 recorded\n"
	       "      --pid PID[,PID...]   trace running processes (all threads, and what they fork\n"
	       "                           from now on); they are never stopped or signalled\n"
	       "  -a, --all-cpus           trace every process on the machine, for COMMAND's\n"
	       "                           duration or until Ctrl-C\n"
	       "      --probe SPEC         also record SPEC (repeatable): u:BINARY:FUNC[(ARG:TYPE,..)],\n"
	       "                           usdt:BINARY:PROVIDER:NAME, tp:CATEGORY:NAME, k:FUNC\n"
	       "      --list-probes WHAT   list the functions and USDT probes of binary WHAT, or\n"
	       "                           with WHAT = tp the kernel's tracepoints\n"
	       "      --offcpu-min US      off-CPU intervals shorter than US microseconds are\n"
	       "                           counted, not recorded one by one (default 10)\n"
	       "      --duration SECONDS   stop recording after SECONDS, as Ctrl-C would: the\n"
	       "                           command is stopped and the trace written\n"
	       "      --max-size SIZE      stop the same way when the recording reaches SIZE\n"
	       "                           (e.g. 500M, 2G; at least 1M); what was recorded is kept\n"
	       "      --ring SIZE          flight recorder: keep only the most recent SIZE of\n"
	       "                           events (at least 8M) and write them at Ctrl-C or exit\n"
	       "  -q, --quiet              Only print errors and the final summary\n"
	       "  -v, --verbose            Debug messages\n"
	       "  -h, --help               Print help\n"
	       "  -V, --version            Print version\n"
	       "\n"
	       "COMMAND's exit status becomes probex's (128+N when killed by signal N);\n"
	       "127 when COMMAND cannot be run, 2 for usage errors.\n");
}

void opts__defaults(struct probex_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->port = 8080;
	o->bind = "127.0.0.1";
	o->sample_freq = 1999;
	o->stacks = STACKS_SAMPLED;
	o->stack_interval_us = 1000;
	o->ringbuf_kib = 0;	/* by CPU count: probes__open's default */
	o->call_graph = CG_AUTO;
	o->stack_copy_kib = 16;
	o->offcpu_min_us = 10;
	syscalls__parse("all", o->sys_flags, NULL, 0);
}

/* --call-graph names, indexed by enum call_graph. */
static const char *const call_graph_names[3] = {
	[CG_AUTO] = "auto",
	[CG_FP] = "fp",
	[CG_DWARF] = "dwarf",
};

/* --stacks takes the trace's probex.stack_mode names. */
_Static_assert((int)STACKS_SAMPLED == TRACE_STACKS_SAMPLED && (int)STACKS_ALL == TRACE_STACKS_ALL &&
	       (int)STACKS_NONE == TRACE_STACKS_NONE, "enum stack_mode is indexed by stack_mode_names");

static enum opts_result usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "probex: error: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
	fprintf(stderr, "Usage: probex [OPTIONS] [--] COMMAND [ARGS...]  |  probex --view FILE\n"
			"For more information, try '--help'.\n");
	return OPTS_USAGE;
}

/* --pid 12,34: at most PROBEX_MAX_ATTACH positive numbers. */
static int parse_pids(struct probex_opts *o, const char *list)
{
	const char *arg = list;
	char *end;

	do {
		long v = strtol(list, &end, 10);

		if (end == list || v <= 0 || v > INT_MAX || (*end && *end != ',') ||
		    o->npids == PROBEX_MAX_ATTACH) {
			usage_error("--pid takes a comma-separated list of process ids, not", arg);
			return -1;
		}
		o->pids[o->npids++] = (int)v;
		list = end + 1;
	} while (*end);
	return 0;
}

enum opts_result opts__parse(struct probex_opts *o, int argc, char **argv)
{
	unsigned long v;
	int c;

	opts__defaults(o);
	optind = 1;
	opterr = 0;
	/* '+': stop at the first non-option so the command's own flags stay its own. */
	while ((c = getopt_long(argc, argv, "+:o:p:aqvhV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!optarg[0])
				return usage_error("empty --output", NULL);
			o->output = optarg;
			break;
		case 'p':
			if (args__ulong("--port", optarg, 0, 65535, &v))
				return OPTS_USAGE;
			o->port = (unsigned int)v;
			o->port_set = true;
			break;
		case OPT_BIND:
			if (!optarg[0])
				return usage_error("empty --bind", NULL);
			o->bind = optarg;
			break;
		case OPT_NO_VIEWER:
			o->no_viewer = true;
			break;
		case OPT_NO_TOKEN:
			o->no_token = true;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case OPT_NO_CACHE:
			o->no_cache = true;
			break;
		case OPT_VIEW:
			o->view_file = optarg;
			break;
		case OPT_BASE:
			o->base_file = optarg;
			break;
		case OPT_SAMPLE_FREQ:
			if (args__ulong("--sample-freq", optarg, 1, 1000000, &o->sample_freq))
				return OPTS_USAGE;
			o->sample_freq_set = true;
			break;
		case OPT_STACKS:
			for (v = 0; v < 3 && strcmp(optarg, stack_mode_names[v]); v++)
				;
			if (v == 3)
				return usage_error("--stacks must be sampled, all or none, not", optarg);
			o->stacks = (enum stack_mode)v;
			break;
		case OPT_STACK_INTERVAL:
			if (args__ulong("--stack-interval", optarg, 1, 60000000, &o->stack_interval_us))
				return OPTS_USAGE;
			break;
		case OPT_RINGBUF:
			if (args__ulong("--ringbuf-size", optarg, 4, 4194304, &v))
				return OPTS_USAGE;
			if (v & (v - 1))
				return usage_error("--ringbuf-size must be a power of two (KiB)", NULL);
			o->ringbuf_kib = v;
			break;
		case OPT_LOSSLESS:
			o->lossless = true;
			break;
		case OPT_CALL_GRAPH:
			for (v = 0; v < 3 && strcmp(optarg, call_graph_names[v]); v++)
				;
			if (v == 3)
				return usage_error("--call-graph must be auto, fp or dwarf, not", optarg);
			o->call_graph = (enum call_graph)v;
			break;
		case OPT_STACK_COPY:
			if (args__ulong("--stack-copy", optarg, 1, PROBEX_USTACK_MAX / 1024, &o->stack_copy_kib))
				return OPTS_USAGE;
			break;
		case OPT_SYSCALLS: {
			char bad[64];

			if (syscalls__parse(optarg, o->sys_flags, bad, sizeof(bad))) {
				fprintf(stderr, "probex: error: unknown syscall or class in --syscalls: %s\n", bad);
				syscalls__print_valid(stderr);
				return usage_error("invalid --syscalls", NULL);
			}
			break;
		}
		case OPT_OFFCPU_MIN:
			if (args__ulong("--offcpu-min", optarg, 0, 60000000, &o->offcpu_min_us))
				return OPTS_USAGE;
			break;
		case OPT_PID:
			if (parse_pids(o, optarg))
				return OPTS_USAGE;
			break;
		case OPT_PROBE:
			if (o->nprobes == PROBEX_PROBES_MAX)
				return usage_error("too many --probe options; the last is", optarg);
			o->probes[o->nprobes++] = optarg;
			break;
		case OPT_LIST_PROBES:
			o->list_probes = optarg;
			break;
		case 'a':
			o->all_cpus = true;
			break;
		case OPT_DURATION:
			if (args__u64("--duration", optarg, 1, 100ull * 365 * 86400, &o->duration_s))
				return OPTS_USAGE;
			break;
		case OPT_MAX_SIZE:
			if (args__size("--max-size", optarg, OPTS_MIN_MAX_SIZE, &o->max_size))
				return OPTS_USAGE;
			break;
		case OPT_RING:
			if (args__size("--ring", optarg, OPTS_MIN_RING, &o->ring))
				return OPTS_USAGE;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			return OPTS_HELP;
		case 'V':
			printf("probex " PROBEX_VERSION "\n");
			return OPTS_EXIT_OK;
		case ':':
			return usage_error("missing value for", argv[optind - 1]);
		default:
			return usage_error("unknown option", argv[optind - 1]);
		}
	}
	o->cmd = argv + optind;
	o->cmd_argc = argc - optind;

	if (o->view_file && o->cmd_argc > 0)
		return usage_error("--view cannot be combined with a command", NULL);
	if (o->base_file && !o->view_file)
		return usage_error("--base needs --view NEW.parquet", NULL);
	if (o->view_file && o->no_viewer)
		return usage_error("--no-viewer cannot be used with --view", NULL);
	if (o->ring && o->max_size)
		return usage_error("--ring and --max-size cannot be combined (a ring never fills)", NULL);
	if (o->npids && o->cmd_argc > 0)
		return usage_error("--pid cannot be combined with a command", NULL);
	if (o->npids && o->all_cpus)
		return usage_error("--pid cannot be combined with -a (which traces every process)", NULL);
	if (o->lossless && (o->npids || o->all_cpus))
		return usage_error("--lossless pauses the traced processes, so only a COMMAND probex "
				   "runs itself: not with", o->npids ? "--pid" : "-a");
	if (o->view_file && (o->npids || o->all_cpus))
		return usage_error("--view cannot be combined with --pid or -a", NULL);
	if (o->nprobes && o->view_file)
		return usage_error("--probe cannot be combined with --view", NULL);
	/* Probes time calls; each sampler interrupt lands inside some and lengthens it (at
	 * 1999 Hz on a VM without a PMU, ~6% of every probed call). */
	if (o->nprobes && !o->sample_freq_set)
		o->sample_freq = PROBEX_PROBE_SAMPLE_FREQ;
	if (o->list_probes)
		return OPTS_RUN;
	if (!o->view_file && o->cmd_argc == 0 && !o->npids && !o->all_cpus)
		return usage_error("a COMMAND (or --pid PID, -a, --view FILE) is required", NULL);
	return OPTS_RUN;
}
