/* The exact counts' fields in the endpoints' JSON (API.md, "Exact counts"): added only
 * where a figure rests on incomplete rows, so other answers keep their bytes. */
#ifndef PROBEX_SERVER_EP_EXACT_H
#define PROBEX_SERVER_EP_EXACT_H

#include <stdint.h>

#include "common/json.h"
#include "model/exact.h"
#include "model/model.h"

/* summary: dropped_records, exact_records (in the open summary object). */
void exact_json__summary(struct json *j, const struct exact_counts *x);
/* event_type_counts: exact_counts{type: n} for the types whose rows in w (counts[code])
 * are fewer than the exact count, or the note; nothing when neither applies. */
void exact_json__type_counts(struct json *j, const struct exact_counts *x, const struct model *m,
			     const struct window *w, const uint64_t *counts);
/* An operation's exact_count, exact_errors, exact_total_ns and incomplete when its rows
 * in w (n) are fewer than the exact count of type (in the operation's open object). */
void exact_json__op(struct json *j, const struct exact_counts *x, const struct model *m,
		    const struct window *w, const char *type, uint64_t n);
/* The exact event type of an operation name: io_uring_complete, else syscall_NAME_exit. */
void exact_json__op_type(const char *op, char *type, size_t size);
/* note: why the exact counts were not used (a window narrower than the trace, or a pid
 * of a process with other threads) when the trace lost rows; else nothing. */
void exact_json__note(struct json *j, const struct exact_counts *x, const struct model *m,
		      const struct window *w);

#endif
