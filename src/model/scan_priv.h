/* Pass 1's internals that model__load_values (values.c) shares with scan.c. */
#ifndef PROBEX_MODEL_SCAN_PRIV_H
#define PROBEX_MODEL_SCAN_PRIV_H

#include <pthread.h>

#include "model/scan.h"

/* Columns of the row query, in SELECT order. */
enum scol {
	C_ROW, C_TYPE, C_TS, C_PID, C_COUNT, C_RET, C_SUBMIT, C_RES, C_CHILD, C_PARENT, C_EXIT,
	C_LAT, C_WEIGHT, C__COUNT,
};

struct scanner {
	const struct trace_file *tf;
	struct trace_rows *r;
	uint64_t cap;			/* rows allocated */
	uint64_t done;			/* rows received (atomic: sinks run on DuckDB's threads) */
	const volatile bool *cancel;
	bool values;			/* a and b are read (else no a32: see scan.h) */
	pthread_mutex_t side_lock;	/* appends to r->side from the sinks */
	bool side_failed;		/* an append ran out of memory */
	int8_t a_col[TRACE_MAX_TYPES], b_col[TRACE_MAX_TYPES];
};

/* Side values a sink has found in its batch, appended under the lock when it is full or
 * the batch is done (a lock per value would serialise the sinks). */
#define SIDE_BATCH 256

struct side_batch {
	unsigned int n;
	struct { uint64_t val; uint32_t row; uint8_t kind; } e[SIDE_BATCH];
};

/* The source columns of a and b, in scol order from C_COUNT. */
#define VALUE_COLS "e.count::UBIGINT, e.ret::BIGINT, e.submit_ts_ns::UBIGINT, e.io_uring_res::BIGINT, " \
		   "e.child_pid::UBIGINT, e.parent_pid::UBIGINT, e.exit_code::BIGINT"
#define VALUE_NULLS "NULL::UBIGINT, NULL::BIGINT, NULL::UBIGINT, NULL::BIGINT, " \
		    "NULL::UBIGINT, NULL::UBIGINT, NULL::BIGINT"

/* Which source columns (enum scol) feed a and b for an event type (see scan.h). */
void scan__type_slots(struct scanner *sc, unsigned int code, int ev, const char *name);
/* Side values: batched per sink call, flushed under sc->side_lock; sorted by row after. */
void scan__side_add(struct scanner *sc, struct side_batch *b, int kind, uint64_t row, uint64_t val);
void scan__side_flush(struct scanner *sc, struct side_batch *b);
int scan__side_sort(struct trace_side *s);
/* Row i of a batch (data d, validity v): a from source column ca into a32[row] (A32_BIG
 * and a side value when it does not fit; skipped without a32), b from cb as a side value.
 * The ROW_A / ROW_B flags it gets.  row: where it goes (file or model order). */
uint8_t scan__ab(struct scanner *sc, struct side_batch *side, void *const *d, uint64_t *const *v,
		 uint64_t i, int ca, int cb, int32_t *a32, uint64_t row);

#endif
