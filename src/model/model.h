/* The viewer's in-memory layout of a trace, built once at load: rows sorted by
 * (pid, ts_ns, file row) with per-pid offsets, event types as codes, stacks interned and
 * pre-rendered as JSON, plus the derived indexes in ops.h.  Read-only once built, so
 * request threads share it without locks. */
#ifndef PROBEX_MODEL_MODEL_H
#define PROBEX_MODEL_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/bsearch.h"
#include "common/pack32.h"
#include "common/sparse32.h"
#include "model/scan.h"
#include "trace/schema.h"
#include "trace/tracefile.h"

struct model {
	const char *path;
	uint64_t sample_freq_hz;
	bool has_latency_ns, has_stack_weight;

	/* Rows in (pid, ts, file row) order; index = "rn". */
	uint64_t n;
	uint64_t *ts;		/* only while building */
	/* ts_ns as 32 bits a row above the least ts of its block of TS_BLOCK rows (ts_base);
	 * a row 2^32 - 1 ns (4.3 s) or more above it (a block that spans two pids far apart
	 * in time) is TS32_BIG there and (row, value) on the side, in row order.  See
	 * model__ts. */
	uint32_t *ts32;
	uint64_t *ts_base;
	uint64_t nts_big;
	uint32_t *ts_big_rn;
	uint64_t *ts_big;
	/* Event type codes, a byte each when there are at most 256 types (type_narrow), else
	 * 16 bits: read them with model__type. */
	void *type;
	bool type_narrow;
	/* Each row's row number in the file (packed, see model__file_row); file_row is the
	 * full column while building. */
	uint32_t *file_row;
	struct pack32 file_row_p;
	/* a (see model/scan.h) as 32 signed bits a row; a value that does not fit (an mmap
	 * address, an io_uring submit time) is A32_BIG there and (row, value) on the side,
	 * in row order.  See model__a.  NULL until model__load_values when read without. */
	int32_t *a32;
	uint64_t na_big;
	uint32_t *a_big_rn;
	uint64_t *a_big;
	/* b is set on few rows (io_uring completions, forks): kept for those only, as
	 * (row, value) in row order.  See model__b. */
	uint64_t nb;
	uint32_t *b_rn;
	uint64_t *b_val;
	uint8_t *flags;
	uint8_t *flags_old;	/* flags before model__load_values (see model/load.h) */
	/* latency_ns (none unless the file has it): 32 bits for each row that has one (lat;
	 * lat32 is the full column while building), and the few values of 2^32 - 1 ns (4.3 s)
	 * or more as (row, value) in row order.  See model__latency. */
	uint32_t *lat32;
	struct sparse32 lat;
	uint64_t nlat_big;
	uint32_t *lat_big_rn;
	uint64_t *lat_big;
	/* stack_weight (NULL unless the file has it) in 16 bits a row; UINT16_MAX there
	 * means the value is on the side, (row, value) in row order.  See model__weight. */
	uint16_t *w16;
	uint64_t nw_big;
	uint32_t *w_big_rn;
	uint64_t *w_big;
	/* Stack id per row, NULL until the stack pass is done: uint16_t when every id fits
	 * (stack_narrow), else uint32_t.  Read it through model__stack(). */
	void *stack;
	bool stack_narrow;
	uint64_t min_ts, max_ts;

	/* pids ascending; rows of pids[i] are [pid_off[i], pid_off[i+1]). */
	uint32_t npids;
	uint32_t *pids;
	uint64_t *pid_off;

	/* Event types: codes 0..ntypes-1 in name order. */
	unsigned int ntypes;
	char **type_names;
	int *type_event;		/* enum event_type or -1 */
	int code_of[EV__COUNT];		/* code of a known type, -1 when absent from the trace */
	uint16_t by_name[TRACE_MAX_TYPES];		/* codes in byte order of their names (JSON key order) */

	/* Rows by type: by_type[type_off[c] ..] are the rns of type c, pid-major and in time
	 * order within a pid; rows of type c and pid index p start at
	 * type_pid_off[c * (npids + 1) + p]. */
	uint32_t *by_type;		/* only while building; then packed: */
	struct pack32 by_type_p;	/* see model__by_type */
	uint64_t *type_pid_off;

	/* First non-empty process_name per pid (sorted by pid). */
	uint32_t nnames;
	uint32_t *name_pid;
	char **name;
	char **last_name;	/* the last name of each pid (after exec) */
	uint32_t *name_tgid;

	/* Stacks (after the stack pass): id → JSON array text of its labels. */
	uint32_t nstacks;
	char **stack_json;
	uint32_t *stack_json_len;
	struct trace_rows labels;	/* the label pool the flame graph folds */
};

/* What a query looks at: rows with ts in [start, end], of one pid (a thread), of one
 * tgid (all its threads) or all. */
struct window {
	uint64_t start, end;	/* inclusive */
	bool has_pid;
	uint32_t pid;
	bool has_tgid;
	uint32_t tgid;
};

/* Take rows (pass 1) into a sorted model; rows' column arrays are consumed. */
int model__build(struct model *m, const struct trace_file *tf, struct trace_rows *rows);
/* model__build in two steps: first what the summary shows (row count, time range, pids,
 * event types; *rank, each row's pid index, is for the second step), then the sorted
 * rows and their indexes.  build_rows frees rank; on error m is freed. */
int model__build_summary(struct model *m, const struct trace_file *tf, struct trace_rows *rows,
			 uint32_t **rank);
int model__build_rows(struct model *m, struct trace_rows *rows, uint32_t *rank);
/* The process names of r (pass 1's, read before or after build_rows) move to m. */
void model__take_names(struct model *m, struct trace_rows *r);
/* Attach stacks from the stack pass (rows->stack in file order). */
int model__attach_stacks(struct model *m, struct trace_rows *rows);
void model__free(struct model *m);

/* Rows of type code c and pid index p with ts in [start, end]: by_type[*lo .. *hi). */
void model__type_window(const struct model *m, unsigned int c, uint32_t p, uint64_t start,
			uint64_t end, uint64_t *lo, uint64_t *hi);

/* b of row rn, which has ROW_B set.  *cursor (start at 0) makes a walk over rows in
 * ascending order cost O(1) a row; NULL means a binary search. */
uint64_t model__b(const struct model *m, uint64_t rn, uint64_t *cursor);

/* The value on the side for row rn; *cursor (start at 0), when not NULL, makes calls for
 * ascending rows O(1) each. */
uint64_t model__a_big(const struct model *m, uint64_t rn, uint64_t *cursor);

/* a of row rn (0 when it has no ROW_A). */
static inline uint64_t model__a(const struct model *m, uint64_t rn, uint64_t *cursor)
{
	int32_t v = m->a32[rn];

	return v != A32_BIG ? (uint64_t)(int64_t)v : model__a_big(m, rn, cursor);
}

/* Stack id of row rn (m->stack is set). */
static inline uint32_t model__stack(const struct model *m, uint64_t rn)
{
	return m->stack_narrow ? ((const uint16_t *)m->stack)[rn] : ((const uint32_t *)m->stack)[rn];
}

/* First index in rns[0..n) (ascending row numbers of a side part) whose row is >= rn. */
static inline uint64_t model__side_find(const uint32_t *rns, uint64_t n, uint64_t rn)
{
	return bsearch__lower_u32(rns, n, rn);
}

/* stack_weight of row rn (the file has the column). */
static inline uint32_t model__weight(const struct model *m, uint64_t rn)
{
	if (m->w16[rn] != UINT16_MAX)
		return m->w16[rn];
	return (uint32_t)m->w_big[model__side_find(m->w_big_rn, m->nw_big, rn)];
}

#define TS_BLOCK_SHIFT 8
#define TS_BLOCK (1u << TS_BLOCK_SHIFT)
#define TS32_BIG UINT32_MAX

/* ts_ns of row rn. */
static inline uint64_t model__ts(const struct model *m, uint64_t rn)
{
	uint32_t d = m->ts32[rn];

	if (d != TS32_BIG)
		return m->ts_base[rn >> TS_BLOCK_SHIFT] + d;
	return m->ts_big[model__side_find(m->ts_big_rn, m->nts_big, rn)];
}

/* latency_ns of row rn (which has ROW_LAT set). */
static inline uint64_t model__latency(const struct model *m, uint64_t rn)
{
	uint32_t v = sparse32__get(&m->lat, rn);

	if (v != UINT32_MAX)
		return v;
	return m->lat_big[model__side_find(m->lat_big_rn, m->nlat_big, rn)];
}

/* Event type code of row rn. */
static inline unsigned int model__type(const struct model *m, uint64_t rn)
{
	return m->type_narrow ? ((const uint8_t *)m->type)[rn] : ((const uint16_t *)m->type)[rn];
}

/* The file row of row rn. */
static inline uint32_t model__file_row(const struct model *m, uint64_t rn)
{
	return pack32__get(&m->file_row_p, rn);
}

/* Entry i of the rows-by-type index. */
static inline uint32_t model__by_type(const struct model *m, uint64_t i)
{
	return pack32__get(&m->by_type_p, i);
}

/* Index of pid in pids, or -1. */
int64_t model__pid_index(const struct model *m, uint32_t pid);
/* First row in [lo, hi) with ts >= t (rows of one pid are ts-sorted). */
uint64_t model__lower_bound(const struct model *m, uint64_t lo, uint64_t hi, uint64_t t);
/* Rows of pid index p with ts in [start, end]: [*lo, *hi). */
void model__pid_window(const struct model *m, uint32_t p, uint64_t start, uint64_t end,
		       uint64_t *lo, uint64_t *hi);
/* pid of row rn (binary search over pid_off). */
uint32_t model__pid_of(const struct model *m, uint64_t rn);
/* The process name of pid (its first), or NULL. */
const char *model__name(const struct model *m, uint32_t pid);
/* Its last name and the tgid of its named rows; false when pid has no named row. */
bool model__name_info(const struct model *m, uint32_t pid, const char **last, uint32_t *tgid);

/* The process of pid: the tgid of its named rows, else pid itself. */
uint32_t model__tgid_of(const struct model *m, uint32_t pid);
/* Whether the window takes the rows of pid (of pid index p). */
bool window__takes(const struct model *m, const struct window *w, uint32_t pid);
bool window__takes_index(const struct model *m, const struct window *w, uint32_t p);
/* The pid indexes a query walks, [*p0, *p1); with a tgid, skip those !window__takes_index. */
void window__pids(const struct model *m, const struct window *w, uint32_t *p0, uint32_t *p1);
/* The window's rows, all its pids merged, in (ts, row) order: *rows (free it), *n. */
int model__window_rows(const struct model *m, const struct window *w, uint64_t **rows, uint64_t *n);
static inline bool window__all_pids(const struct window *w)
{
	return !w->has_pid && !w->has_tgid;
}

#endif
