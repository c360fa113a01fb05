/* How a writer numbers stack lists: every row with a stack_trace gets its list's number
 * in stack_trace_id, and the first row (file order) of each number stack_trace_first, so
 * that a reader can take each distinct list from those rows alone. */
#ifndef PROBEX_TRACE_STACKNUM_H
#define PROBEX_TRACE_STACKNUM_H

#include <stdint.h>

#include "common/bitset.h"
#include "parquet/colbuf.h"
#include "trace/schema.h"

/* Set the row's number; written holds the numbers already written.  0 or -ENOMEM. */
static inline int stacknum__set(struct colbuf *c, struct bitset *written, uint32_t number)
{
	int first = bitset__add(written, number);

	if (first < 0)
		return first;
	colbuf__set(c, TC_STACK_TRACE_ID, number);
	if (first)
		colbuf__set(c, TC_STACK_TRACE_FIRST, 1);
	return 0;
}

#endif
