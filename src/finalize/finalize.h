/* Spool → Parquet: expand kernel records into the trace's rows, symbolize each
 * unique stack once, sort by time, write ZSTD Parquet under a temporary name and rename
 * it into place only when complete. */
#ifndef PROBEX_FINALIZE_FINALIZE_H
#define PROBEX_FINALIZE_FINALIZE_H

#include <stdbool.h>
#include <stdint.h>

struct ksyms;

struct finalize_opts {
	const char *spool;		/* input */
	const char *output;		/* final path; written as OUTPUT.probex-tmp, then renamed */
	struct ksyms *ksyms;		/* kernel symbols (read, or asked for lazily); NULL → hex */
	int threads;			/* DuckDB threads, 0 = default */
	int progress;			/* print progress lines (on a TTY) */
	bool force;			/* replace an existing output instead of keeping it as .old */
	uint64_t run_rows;		/* rows per sorted run (memory vs. runs spilled); 0 = default */
};

struct finalize_result {
	uint64_t rows;			/* rows written */
	uint64_t records;		/* spool records read */
	uint64_t bad_records;		/* unknown/short records skipped (counted, not fatal) */
	uint64_t unique_stacks;
	uint64_t frames_total;		/* unique user frames looked up */
	uint64_t frames_symbolized;
	uint32_t spilled_runs;		/* sorted runs written next to the output (0: sorted in memory) */
	int torn_tail;			/* the spool ended mid-item (killed writer) */
	double seconds;
};

int finalize__run(const struct finalize_opts *opts, struct finalize_result *res);

#endif
