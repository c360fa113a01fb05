/* stack_trace values: every unique user and kernel stack labelled once, labels interned
 * into one dictionary, and each (user stack, kernel stack) combination that rows use
 * turned into one list of label ids. */
#ifndef PROBEX_FINALIZE_STACKLISTS_H
#define PROBEX_FINALIZE_STACKLISTS_H

#include <stdbool.h>
#include <stdint.h>

#include "parquet/parquet.h"
#include "parquet/strtab.h"

struct labeler;
struct stackset;
struct stacklists;

int stacklists__new(struct stacklists **sl);
void stacklists__free(struct stacklists *sl);
struct stackfeed;
/* Label every stack of both sets (symbolization happens here). */
int stacklists__label(struct stacklists *sl, struct labeler *l, struct stackset *ustacks,
		      struct stackset *kstacks, int progress);
/* The same in a thread, beside the indexer interning into the sets, which share feed;
 * finish closes the feed, waits for the last labels and returns the thread's error.
 * finish is also the cleanup: call it whenever start succeeded. */
int stacklists__label_start(struct stacklists *sl, struct labeler *l, struct stackset *ustacks,
			    struct stackset *kstacks, struct stackfeed *feed, int progress);
int stacklists__label_finish(struct stacklists *sl);
/* List id for a row's stacks (-1 each when absent); -1 when the row has none. */
int64_t stacklists__list(struct stacklists *sl, int32_t ustack, int32_t kstack);
/* Could a new list for (ustack, kstack) move the lists' arrays (a realloc)? */
bool stacklists__may_move(const struct stacklists *sl, int32_t ustack, int32_t kstack);
/* The dictionary and lists for the writer; valid until the next stacklists__list. */
const struct pq_dict *stacklists__dict(struct stacklists *sl);
const struct pq_lists *stacklists__lists(struct stacklists *sl);
/* stack_modules: the same lists (same ids and lengths), of each label's object. */
const struct pq_dict *stacklists__modules_dict(struct stacklists *sl);
const struct pq_lists *stacklists__modules_lists(struct stacklists *sl);

#endif
