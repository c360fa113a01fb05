/* Streaming passes over a trace file into compact columns, in file order: event types
 * become small codes and only the type-specific values the viewer needs are kept (pass 1);
 * stack lists are interned once, by DuckDB's hash of the list computed on its threads
 * (pass 2, the slow one: decoding millions of label lists dominates loading). */
#ifndef PROBEX_MODEL_SCAN_H
#define PROBEX_MODEL_SCAN_H

#include <duckdb.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/hmap.h"

#include "trace/tracefile.h"

/* Stack ids: 0 = NULL stack_trace, 1 = a list with no (non-empty) labels, 2.. = labels. */
#define STACK_NULL 0
#define STACK_EMPTY 1
#define STACK_WIDE 0xffff

/* flags: which of a/b/latency are non-NULL. */
#define ROW_A 1u
#define ROW_B 2u
#define ROW_LAT 4u

/* What a and b hold, by event type:
 *   read/write/mmap/munmap enter  a = count
 *   every *_exit                  a = ret (signed)
 *   io_uring_complete             a = submit_ts_ns, b = io_uring_res (signed)
 *   process_fork                  a = child_pid, b = parent_pid
 *   process_exit                  a = exit_code (signed) */
/* a that does not fit 32 signed bits (an mmap address, an io_uring submit time). */
#define A32_BIG INT32_MIN

/* Values kept beside a narrow column: (file row, value) pairs, in row order once a scan is
 * done.  b is set on few rows (io_uring completions, forks): all its values are here. */
enum trace_side_kind { SIDE_A, SIDE_B, SIDE_LAT, SIDE_WEIGHT, SIDE__COUNT };

struct trace_side {
	uint64_t n, cap;
	uint32_t *row;
	uint64_t *val;
};

/* Distinct event types a file may have: every syscall's two, and the fixed ones. */
#define TRACE_MAX_TYPES 2048

struct trace_rows {
	uint64_t n;		/* rows, in file order */
	uint64_t *ts;
	uint32_t *pid;
	/* Event type codes (< TRACE_MAX_TYPES): a byte each when the file has at most 256
	 * types (type_narrow), else 16 bits.  Read with trace_rows__type. */
	void *type;
	bool type_narrow;
	/* Pass 2: the stack id of each row in 16 bits; STACK_WIDE there means an id of
	 * 0xffff or more, kept in stack_wide (row -> id; a trace has rarely so many). */
	uint16_t *stack;
	struct hmap stack_wide;
	/* The type-specific values, narrowed as they are read (8 bytes a row of each would
	 * make reading the rows the viewer's peak): a in 32 bits, A32_BIG there meaning it
	 * is in side[SIDE_A]; latency_ns in 32 bits (NULL unless the file has it),
	 * UINT32_MAX meaning side[SIDE_LAT]; stack_weight in 16 bits (NULL unless the file
	 * has it; NULL values are 1), UINT16_MAX meaning side[SIDE_WEIGHT]; b only in
	 * side[SIDE_B].  A value not set (see flags) reads 0. */
	int32_t *a32;
	uint32_t *lat32;
	uint16_t *w16;
	struct trace_side side[SIDE__COUNT];
	uint8_t *flags;

	unsigned int ntypes;
	char *type_names[TRACE_MAX_TYPES];
	int type_event[TRACE_MAX_TYPES];	/* enum event_type, or -1 for a type this version does not know */

	uint32_t nstacks;	/* ids 0 .. nstacks-1 */
	uint32_t *stack_first;	/* per stack: first label index; labels first..first+count-1 */
	uint32_t *stack_count;
	uint64_t nlabels;
	uint64_t *label_off;	/* into pool */
	uint32_t *label_len;
	char *pool;

	bool ts_sorted;		/* the file's rows are in ts order (set by pass 1) */
	char enum_type[48];	/* pass 1's ENUM of the event types (for model__load_values) */
	uint32_t nnames;	/* first non-empty process_name per pid, by (ts, file row) */
	uint32_t *name_pid;
	char **name;
	char **last_name;	/* the last one (after an exec or a rename) */
	uint32_t *name_tgid;	/* tgid of the first named row */
};

/* Pass 1: read every row of tf except its stack (and process names, see below); without
 * values, a and b are left out (no a32, no ROW_A or ROW_B: model__load_values reads
 * them).  *cancel is polled between batches.  Logs "path: problem" and returns a negative
 * errno on failure (rows is then empty). */
int trace_rows__scan(duckdb_connection con, const struct trace_file *tf,
		     const volatile bool *cancel, struct trace_rows *rows, bool values);
/* Pass 1's process names (name_pid, name, last_name, name_tgid), read after the rows
 * (which the summary needs first); only rows->ts_sorted of pass 1 is needed.  On failure
 * the caller frees rows. */
int trace_rows__scan_names(duckdb_connection con, const struct trace_file *tf,
			   struct trace_rows *rows);
/* Pass 2: fill rows->stack and the stack table.  On failure the caller frees rows. */
int trace_rows__scan_stacks(duckdb_connection con, const struct trace_file *tf,
			    const volatile bool *cancel, struct trace_rows *rows);
void trace_rows__free(struct trace_rows *rows);

static inline unsigned int trace_rows__type(const struct trace_rows *r, uint64_t i)
{
	return r->type_narrow ? ((const uint8_t *)r->type)[i] : ((const uint16_t *)r->type)[i];
}

/* Label i of the pool. */
static inline const char *trace_rows__label(const struct trace_rows *r, uint64_t i, uint32_t *len)
{
	*len = r->label_len[i];
	return r->pool + r->label_off[i];
}

#endif
