/* Reading a trace into the model, in the order that lets a server answer early: pass 1
 * (the summary's parts, then process names and the sorted rows), then pass 2 (stacks).
 * Pairing (ops__build) needs only pass 1 and may run beside pass 2. */
#ifndef PROBEX_MODEL_LOAD_H
#define PROBEX_MODEL_LOAD_H

#include <duckdb.h>
#include <stdbool.h>

#include "model/model.h"
#include "model/scan.h"
#include "trace/tracefile.h"

/* Called once the summary's parts of m are built, before the rows are sorted; an error
 * it returns stops the load. */
typedef int (*model_summary_fn)(void *ctx, const struct model *m);

/* Pass 1: tf's rows into m, sorted and indexed; rows keeps what pass 2 needs (the caller
 * frees it).  *cancel is polled between batches.  0 or a negative errno, logged. */
int model__load_rows(duckdb_connection con, const struct trace_file *tf,
		     const volatile bool *cancel, struct model *m, struct trace_rows *rows,
		     model_summary_fn summary, void *ctx, bool details);
/* Without details, model__load_rows leaves m's process names empty and its values (a, b)
 * out: these read them later (ts_sorted: rows->ts_sorted of pass 1; enum_type: its
 * rows->enum_type).  Requests that show them wait for them. */
int model__load_names(duckdb_connection con, const struct trace_file *tf, bool ts_sorted,
		      struct model *m);
int model__load_values(duckdb_connection con, const struct trace_file *tf, const char *enum_type,
		       struct model *m);
/* Pass 2: the stacks into m (rows from pass 1, which the caller frees). */
int model__load_stacks(duckdb_connection con, const struct trace_file *tf,
		       const volatile bool *cancel, struct model *m, struct trace_rows *rows);

#endif
