/* Argument helpers shared by every subcommand: numbers, usage errors, the common flags. */
#ifndef PROBEX_CLI_ARGS_H
#define PROBEX_CLI_ARGS_H

#include <stdint.h>

/* probex's own exit statuses (a traced command's status is passed through). */
#define EXIT_USAGE 2

/* Parse a decimal in [min, max] for option opt; prints the error.  0 or -EINVAL. */
int args__u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Parse a size: bytes, or a number with K, M, G or T (powers of 1024, optionally followed
 * by B or iB), at least min (a whole number of MiB, named in the error).  0 or -EINVAL. */
int args__size(const char *opt, const char *s, uint64_t min, uint64_t *out);
int args__ulong(const char *opt, const char *s, unsigned long min, unsigned long max,
		unsigned long *out);

/* A duration for option opt: a decimal number of seconds, or with a unit suffix ns, us,
 * ms or s ("1.5", "250ms").  Prints the error.  0 or -EINVAL. */
int args__duration_ns(const char *opt, const char *s, uint64_t *out);

/* Print "probex[ CMD]: error: MSG" and the usage line; returns EXIT_USAGE. */
int args__usage_error(const char *cmd, const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* -v / -q, as every subcommand takes them. */
void args__verbosity(int verbose, int quiet);

struct priv_target;
/* Turn on the on-disk symbol cache in the invoking user's cache directory (entries
 * given to that user under sudo).  Silent when there is none: labelling works without. */
void args__symcache(const struct priv_target *priv);

#endif
