/* The trace's rows: an index over the kernel records (a paired syscall record gives its
 * *_enter and *_exit rows), sorted by time (finalize/runs.h: bounded memory), then
 * written row group by row group, each record read back
 * from the spool by offset. */
#ifndef PROBEX_FINALIZE_ROWS_H
#define PROBEX_FINALIZE_ROWS_H

#include <stdint.h>

struct addrspace;
struct pq_writer;
struct stackset;
struct stacklists;
struct rows;

struct rows_stats {
	uint64_t rows, records, bad_records;
	uint32_t spilled_runs;
};

struct rows_opts {
	const struct addrspace *as;
	struct stackset *ustacks, *kstacks;
	const char *spool_path;		/* read back by item offset while writing */
	const char *spill_path;		/* sorted runs, when the rows exceed one run */
	uint64_t run_rows;		/* rows per sorted run; 0 = RUNS_DEFAULT_ROWS */
};

int rows__new(struct rows **r, const struct rows_opts *o);
void rows__free(struct rows *r);
/* Unwind records' copied user stacks with unw (not owned); without one they have none. */
struct unwinder;
void rows__set_unwinder(struct rows *r, struct unwinder *unw);
/* Merge the Python frames records carry into their user stacks (py not owned). */
struct pyframes;
void rows__set_pyframes(struct rows *r, struct pyframes *py);
/* What the rows need of the session text, before writing: the --probe descriptions (its
 * probex.probes line) and the descriptors open at the start (probex.fds). */
int rows__set_probes(struct rows *r, const char *meta);
/* Index one record, the spool item at offset item (its data is not kept): its stacks are
 * interned (a copied user stack unwound) and an off_cpu row joined with its blocking
 * switch's and its waker's stacks now.  Malformed records are counted and skipped, never
 * fatal. */
int rows__add_record(struct rows *r, const void *data, uint32_t len, uint64_t item);
/* Stable sort by timestamp (ties keep record order): in memory, or an external merge. */
int rows__sort(struct rows *r);
/* Write every row, in order, as row groups of at most rg_rows. */
int rows__write(struct rows *r, struct pq_writer *w, struct stacklists *sl, uint32_t rg_rows);
void rows__stats(const struct rows *r, struct rows_stats *out);

#endif
