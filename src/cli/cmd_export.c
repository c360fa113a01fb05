/* `probex export FILE --format folded|speedscope|chrome|pprof [--event-type T] [--pid P]
 * [-o OUT]`: a trace in other tools' formats, to stdout or a new file. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "common/log.h"
#include "export/export.h"
#include "trace/schema.h"

/* -o never replaces a file: O_EXCL also refuses a symlink planted at the path. */
static FILE *create_output(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	FILE *f;

	if (fd < 0) {
		log__error("%s: cannot create: %s", path, strerror(errno));
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

static int parse_format(const char *s, enum export_fmt *fmt)
{
	for (int i = 0; i < EXPORT__COUNT; i++)
		if (!strcmp(s, export_fmt_names[i])) {
			*fmt = i;
			return 0;
		}
	return -EINVAL;
}

static int finish(FILE *out, const char *path, int err)
{
	if (out != stdout) {
		if (fclose(out) && !err) {
			log__error("%s: %s", path, strerror(errno));
			err = -EIO;
		}
		if (err)
			unlink(path);	/* no half-written export left behind */
	} else if (fflush(stdout) && !err) {
		err = -EIO;
	}
	return err ? 1 : 0;
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' }, { "event-type", required_argument, NULL, 'e' },
		{ "pid", required_argument, NULL, 'p' },    { "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },	    { 0 },
	};
	struct export_opts o = { .event_type = "cpu_sample" };
	const char *usage = cmd__usage("export"), *path = NULL, *fmt = NULL;
	struct progress prog;
	unsigned long pid;
	FILE *out = stdout;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "f:e:p:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': fmt = optarg; break;
		case 'e': o.event_type = optarg; break;
		case 'p':
			if (args__ulong("--pid", optarg, 1, UINT32_MAX, &pid))
				return EXIT_USAGE;
			o.has_pid = true;
			o.pid = (uint32_t)pid;
			break;
		case 'o': path = optarg; break;
		case 'h': return cmd__help("export");
		default: return args__usage_error("export", usage, "unknown option or missing value '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return args__usage_error("export", usage, "expected one FILE");
	if (!fmt)
		return args__usage_error("export", usage, "--format is required");
	if (parse_format(fmt, &o.fmt))
		return args__usage_error("export", usage, "unknown format '%s' (folded, speedscope, chrome, pprof)", fmt);
	if (!event_type__valid(o.event_type))
		return args__usage_error("export", usage, "unknown event type '%s'", o.event_type);
	if (o.fmt == EXPORT_PPROF && !path && isatty(STDOUT_FILENO))
		return args__usage_error("export", usage, "pprof output is binary: give -o FILE or redirect");
	progress__init(&prog, isatty(STDERR_FILENO), "export", o.fmt == EXPORT_CHROME ? 5 : 2);
	o.progress = &prog;
	if (path && !(out = create_output(path)))
		return 1;
	return finish(out, path, export__run(argv[optind], &o, out));
}
