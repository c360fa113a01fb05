/* struct rows, shared by rows.c (collecting and writing rows) and syscols.c (a syscall
 * record's columns). */
#ifndef PROBEX_FINALIZE_ROWS_PRIV_H
#define PROBEX_FINALIZE_ROWS_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/records.h"
#include "common/bitset.h"
#include "common/intern.h"
#include "finalize/argvcol.h"
#include "finalize/fdpaths.h"
#include "finalize/rows.h"

struct colbuf;
struct rg_writer;

struct rows {
	const struct addrspace *as;
	struct unwinder *unw;
	struct stackset *ustacks, *kstacks;
	struct runs *runs;
	struct spool_blocks *blocks;	/* records read back by offset while writing */
	struct offjoin *offjoin;	/* off_cpu rows' blocking-switch and waker stacks */
	struct probe_rows *probes;	/* --probe rows' event types and arguments */
	struct pyframes *py;		/* Python frames merged into user stacks (not owned) */
	uint64_t nrec;
	struct intern comms, files;
	struct argvcol argv;		/* process_exec command lines, by spool item */
	struct fdpaths fdp;		/* fd → path per process, as of the row being written */
	bool fd_track;			/* the recording followed descriptors (META_FDS) */
	uint64_t bad;
	/* The last name and stack pair looked up, and what they gave. */
	char last_comm[PROBEX_COMM_LEN];
	uint32_t last_comm_id;
	int32_t last_u, last_k;
	int64_t last_list;
	struct bitset lists_seen;	/* lists with a row written (see trace/stacknum.h) */
};

/* A file name's id in the files table (waiting for the writer if the table could move). */
int64_t rows__file_id(struct rows *r, const char *name, size_t max, struct rg_writer *g);
int syscols__cols(struct rows *r, struct colbuf *c, const struct rec_syscall *s, bool exit_half,
		  struct rg_writer *g, int *ev, uint32_t *cpu);

#endif
