#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "common/log.h"
#include "common/priv.h"
#include "symbolize/symcache.h"

int args__u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max) {
		fprintf(stderr, "probex: error: invalid value '%s' for '%s' (expected %llu..%llu)\n", s, opt,
			(unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int args__size(const char *opt, const char *s, uint64_t min, uint64_t *out)
{
	static const char units[] = "KMGT";
	unsigned long long v;
	const char *u;
	char *end;
	int shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!errno && end != s && s[0] != '-' && *end && (u = strchr(units, toupper((unsigned char)*end)))) {
		shift = 10 * (int)(u - units + 1);
		end++;
		if ((*end == 'i' || *end == 'I') && (end[1] == 'B' || end[1] == 'b'))
			end += 2;
		else if (*end == 'B' || *end == 'b')
			end++;
	}
	if (errno || end == s || *end || s[0] == '-' || (shift && v > (UINT64_MAX >> shift))) {
		fprintf(stderr, "probex: error: invalid size '%s' for '%s' (expected bytes or a number "
			"with K, M, G or T, at least %lluM)\n", s, opt, (unsigned long long)(min >> 20));
		return -EINVAL;
	}
	v <<= shift;
	if (v < min) {
		fprintf(stderr, "probex: error: '%s' %s is too small: the smallest allowed is %lluM\n",
			opt, s, (unsigned long long)(min >> 20));
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int args__ulong(const char *opt, const char *s, unsigned long min, unsigned long max,
		unsigned long *out)
{
	uint64_t v;

	if (args__u64(opt, s, min, max, &v))
		return -EINVAL;
	*out = (unsigned long)v;
	return 0;
}

int args__duration_ns(const char *opt, const char *s, uint64_t *out)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1e9 },
	};
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	for (size_t i = 0; end != s && !errno && v >= 0 && i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		if (v * units[i].ns >= 1.8e19)
			break;
		*out = (uint64_t)(v * units[i].ns + 0.5);
		return 0;
	}
	fprintf(stderr, "probex: error: invalid duration '%s' for '%s' (e.g. 1.5, 250ms, 10us)\n", s, opt);
	return -EINVAL;
}

int args__usage_error(const char *cmd, const char *usage, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "probex%s%s: error: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nUsage: %s\nFor more information, try '--help'.\n", usage);
	return EXIT_USAGE;
}

void args__verbosity(int verbose, int quiet)
{
	log_verbosity = quiet ? 0 : 1 + verbose;
}

void args__symcache(const struct priv_target *priv)
{
	char dir[PATH_MAX];

	if (symcache__default_dir(priv->valid ? priv->home : getenv("HOME"), dir, sizeof(dir)))
		return;
	if (symcache__configure(dir, priv->valid ? priv->uid : (uid_t)-1,
				priv->valid ? priv->gid : (gid_t)-1, 0))
		return;
	log__debug("symbol cache: %s", dir);
}
