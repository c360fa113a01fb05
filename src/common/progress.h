/* A one-line progress display on stderr for work that can take seconds (export, report):
 * the phase, its step of all, rows done and their rate, redrawn at most 5 times a second
 * and erased at the end.  Off (every call a no-op) unless stderr is a terminal. */
#ifndef PROBEX_COMMON_PROGRESS_H
#define PROBEX_COMMON_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct progress {
	bool on;
	const char *what;	/* "export", "report" */
	const char *phase;
	int step, steps;
	uint64_t rows;
	double phase_start, last_draw;
};

/* on: usually isatty(STDERR_FILENO).  The other calls accept NULL (no progress). */
void progress__init(struct progress *p, bool on, const char *what, int steps);
void progress__phase(struct progress *p, const char *phase);
/* n more rows of the current phase. */
void progress__rows(struct progress *p, uint64_t n);
/* Erase the line. */
void progress__done(struct progress *p);

#endif
