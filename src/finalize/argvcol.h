/* The argv column: the command lines of process_exec records, kept as lists of interned
 * strings while the spool is read, looked up by the record when its row is written. */
#ifndef PROBEX_FINALIZE_ARGVCOL_H
#define PROBEX_FINALIZE_ARGVCOL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/intern.h"
#include "parquet/parquet.h"

struct argvcol {
	struct intern strs;
	uint32_t *offsets, *items;	/* list i: items[offsets[i] .. offsets[i + 1]) */
	uint32_t nlists, cap_lists, nitems, cap_items;
	uint64_t *keys;			/* spool item of each list, ascending after finish */
	struct pq_dict dict;
	struct pq_lists lists;
	bool sorted;
};

/* The NUL-separated command line buf[0..len) of spool item key.  0 or -ENOMEM. */
int argvcol__add(struct argvcol *a, uint64_t key, const char *buf, uint32_t len);
/* Sort for lookups and fill dict and lists (fixed from now on). */
void argvcol__finish(struct argvcol *a);
/* List id of spool item key, or -1. */
int64_t argvcol__list(const struct argvcol *a, uint64_t key);
void argvcol__free(struct argvcol *a);

#endif
