/* The rows' sort by time as an external merge: row references are gathered into runs of
 * at most run_rows, each run sorted in memory; when there is more than one run, each is
 * spilled to a file next to the output and a k-way merge reads them back in order.
 *
 * Memory: 4 × run_rows × sizeof(struct rowref) while gathering (the run being filled, the
 * one a second thread sorts and writes, and two sort scratches), then about 220 KiB per
 * run merged at once (at most RUNS_MAX_FANIN) while merging; never the row count. */
#ifndef PROBEX_FINALIZE_RUNS_H
#define PROBEX_FINALIZE_RUNS_H

#include <stdint.h>

/* One output row: its time, the spool item it comes from (bit 63: the exit half of a
 * paired syscall), its interned stacks and, for an off_cpu row, its waker's (-1 when
 * absent): what emitting the row needs besides the record itself. */
struct rowref {
	uint64_t ts;
	uint64_t item;
	int32_t ustack, kstack;
	int32_t wustack, wkstack;
};

#define ROWREF_EXIT_HALF	(1ull << 63)

#define RUNS_DEFAULT_ROWS	(1u << 20)	/* 32 MiB of rowrefs */
#define RUNS_MIN_ROWS		16u
#define RUNS_MAX_FANIN		64u		/* runs merged at once; more take another pass */

struct runs;

/* spill_path is created only if a second run is needed, and unlinked as soon as it is
 * open: no exit path (a crash or SIGKILL included) leaves it behind. */
int runs__new(struct runs **r, const char *spill_path, uint64_t run_rows);
void runs__free(struct runs *r);
int runs__add(struct runs *r, const struct rowref *ref);
/* No more rows: sort the last run and prepare the merge. */
int runs__finish(struct runs *r);
/* The next row in (ts, arrival) order: 1, 0 at the end, or negative errno. */
int runs__next(struct runs *r, struct rowref *out);
uint64_t runs__rows(const struct runs *r);
/* Runs spilled to disk (0: everything was sorted in memory). */
uint32_t runs__spilled(const struct runs *r);

#endif
