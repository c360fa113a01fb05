/* Loading the in-kernel walk's tables (bpf/unwind.h) while recording: a thread of its
 * own builds each object's table once (symbolize/unwtab.c), writes it into the rows map
 * and keeps every traced process's executable mappings current in the process map, from
 * the side-band records (exec, mmap) and the ring's fork and exit records.  Until a
 * process's tables are in, its stacks are copies, as without tables.
 *
 * Bounds: UNWTAB_MAX_ROWS rows per object, the rows map's size in all, UNW_PROC_MAPS
 * mappings per process; an object or mapping past them is counted and its frames are
 * copied instead. */
#ifndef PROBEX_RECORD_UNWLOAD_H
#define PROBEX_RECORD_UNWLOAD_H

#include <stdint.h>

struct perf_event_header;
struct strbuf;
struct probes;
struct unwload;

struct unwload_stats {
	uint64_t objects;	/* objects with a table */
	uint64_t cached;	/* ... of which read from the cache */
	uint64_t no_table;	/* objects without one (no .eh_frame_hdr, unreadable, too large) */
	uint64_t other_file;	/* mappings whose file's build-id is not the mapped one's */
	uint64_t rows_full;	/* objects refused: the rows map was full */
	uint64_t maps_full;	/* mappings left out: UNW_PROC_MAPS reached */
	uint64_t rows;		/* rows loaded */
	uint64_t build_ns;	/* time spent building tables */
	uint64_t walk_end[8];	/* the kernel's walks by how they ended (enum unw_end) */
	uint64_t walked;	/* frames the kernel walked */
};

/* NULL (and 0) when the probes have no tables to fill (frame-pointer stacks). */
int unwload__start(struct unwload **out, struct probes *p);
/* From the consumer thread: side-band records, forks and exits of traced processes. */
void unwload__sideband(struct unwload *l, const struct perf_event_header *ev);
void unwload__fork(struct unwload *l, uint32_t parent, uint32_t child);
void unwload__exit(struct unwload *l, uint32_t tgid);
/* Stop the thread, read the counts, free. */
void unwload__stop(struct unwload *l, struct unwload_stats *st);
/* unwload__stop, the counts logged and written as META_STACK_WALK's line into meta. */
void unwload__end(struct unwload *l, struct strbuf *meta);

#endif
