/* A realistic, seeded, synthetic trace (for benchmarks). */
#ifndef PROBEX_SYNTH_SYNTH_H
#define PROBEX_SYNTH_SYNTH_H

#include <stdbool.h>
#include <stdint.h>

struct synth_opts {
	const char *output;
	uint64_t events;	/* rows */
	uint64_t seed;		/* workload seed: equal options give equal files */
	uint64_t duration_ms;	/* trace length; 0 = 3 us per event */
	uint64_t sample_freq;	/* probex.sample_freq_hz metadata */
	uint64_t lost_ppm;	/* syscall rows dropped per million, as a lossy recorder would */
	uint64_t row_group_rows;
	bool force;		/* replace an existing output instead of keeping it as .old */
};

/* Write the trace (under a temporary name, renamed when complete).  Errors are logged;
 * returns 0 or a negative errno. */
int synth__write(const struct synth_opts *o);

#endif
