/* A sorted run on disk: blocks of at most RUNBLOCK_ROWS rowrefs, each
 *     u32 body bytes, u32 rows, body
 * where the body holds per row varint(ts − previous ts), zigzag varint of the change in
 * (item << 1 | exit half), varint(ustack + 1), varint(kstack + 1), varint(wustack + 1),
 * varint(wkstack + 1); "previous" starts at 0 in every block.  Rows of a sorted run are
 * close in time and in the spool, and only off_cpu rows have a waker, so a row takes about
 * 8 bytes instead of 32: the spill costs a quarter of the writes and reads. */
#ifndef PROBEX_FINALIZE_RUNFILE_H
#define PROBEX_FINALIZE_RUNFILE_H

#include <stddef.h>
#include <stdint.h>

#include "finalize/runs.h"

#define RUNBLOCK_ROWS		4096u
#define RUNBLOCK_MAX_BYTES	(8u + RUNBLOCK_ROWS * 40u)

struct run_writer {
	int fd;
	uint64_t off;			/* where the next flush goes */
	uint8_t *buf;
	size_t len, cap, blk;		/* staged bytes; start of the open block */
	uint32_t blk_rows;
	uint64_t prev_ts, prev_item;
	uint64_t rows;
};

/* Start writing a run at file offset off. */
int run_writer__begin(struct run_writer *w, int fd, uint64_t off);
int run_writer__add(struct run_writer *w, const struct rowref *ref);
/* Write what is staged; *end is the offset after the run.  Frees the staging buffer
 * (also on error). */
int run_writer__end(struct run_writer *w, uint64_t *end);

struct run_reader {
	int fd;
	uint64_t next, end;		/* file bytes of the run still to read */
	uint8_t *raw;
	struct rowref *rows;		/* the current block, decoded */
	uint32_t n, i;
};

int run_reader__init(struct run_reader *rd, int fd, uint64_t start, uint64_t end);
/* Decode the next block into rows (n = 0 at the run's end). */
int run_reader__fill(struct run_reader *rd);
void run_reader__free(struct run_reader *rd);

#endif
