/* `probex diff BASE NEW`: what changed between two recordings — functions by CPU time,
 * syscalls, off-CPU time by blocking stack, processes — as text (100 columns), JSON, or
 * folded stacks with both weights (FlameGraph's difffolded.pl format). */
#ifndef PROBEX_DIFF_DIFF_H
#define PROBEX_DIFF_DIFF_H

#include <stdio.h>

#include "report/report.h"

struct diff_opts {
	/* Filters applied to both traces, the functions' event type, --top, --json: as
	 * `probex report` takes them. */
	struct report_opts r;
	bool folded;		/* --format folded */
	const char *out_path;	/* -o FILE (folded only); NULL: stdout */
};

/* Compare the traces at base and new; 0 or a negative errno after one logged line naming
 * the file at fault (nothing written then). */
int diff__run(const char *base, const char *new, const struct diff_opts *o, FILE *out);

#endif
