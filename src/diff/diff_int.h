/* What the diff's sections share: both traces opened as `probex report` opens one (a
 * `trace` and a filtered `events` view each), their metadata, and the output. */
#ifndef PROBEX_DIFF_DIFF_INT_H
#define PROBEX_DIFF_DIFF_INT_H

#include "common/intern.h"
#include "diff/diff.h"

enum { BASE, NEW };

struct diff_side {
	const char *run;	/* "base" or "new" */
	duckdb_database db;
	struct report r;	/* r.con: this trace's connection */
	struct trace_file tf;
	bool opened;
	char *command;		/* argv joined by spaces ("" when unknown) */
	char *program;		/* argv[0] */
	char *version, *stack_mode, *missing_probes, *kernel;
	uint64_t events, duration_ns;
	uint64_t samples;	/* CPU samples (stack_weight counts) */
	uint64_t syscalls, syscall_ns, off_cpu_ns, processes;
	double period_ns;	/* CPU time of one sample: 1e9 / sample_freq_hz */
};

struct diff {
	struct diff_side s[2];
	const struct diff_opts *o;
	FILE *out;
	struct json *j;		/* non-NULL: JSON output */
	struct strbuf notes;	/* warnings, one a line */
};

/* Open and validate path as side i; reads its metadata. */
int diff_side__open(struct diff_side *s, const char *path, const struct diff_opts *o);
void diff_side__close(struct diff_side *s);

/* A name (or stack, or process path) of either trace by one id for both: keys[i] holds
 * the id of each of side i's rows. */
int64_t diff__key(struct intern *k, const char *s, size_t n);
/* Warn on stderr and in the output. */
void diff__note(struct diff *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text: print the table; JSON: add it.  Frees it. */
void diff__emit(struct diff *d, struct rtable *t);
/* |a - b| for sorting by absolute change. */
static inline uint64_t diff__abs(int64_t a, int64_t b)
{
	return a > b ? (uint64_t)(a - b) : (uint64_t)(b - a);
}

int diff__functions(struct diff *d);
int diff__folded(struct diff *d, FILE *out);
int diff__syscalls(struct diff *d);
int diff__off_cpu(struct diff *d);
int diff__processes(struct diff *d);

#endif
