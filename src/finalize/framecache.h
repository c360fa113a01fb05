/* Label ids of the user frames already labelled, by what a frame's labels depend on: its
 * mapping, its address and whether it is the leaf (labels.h).  The same return addresses
 * recur in most stacks of a process (an interpreter's loop, main, _start): labelling each
 * occurrence again (symbol lookups, label strings, interning them) was most of the
 * labelling time of a python3 trace. */
#ifndef PROBEX_FINALIZE_FRAMECACHE_H
#define PROBEX_FINALIZE_FRAMECACHE_H

#include <stdbool.h>
#include <stdint.h>

struct framecache;

struct framecache_hit {
	const uint32_t *lids, *mids;	/* label and object ids, n of each */
	uint32_t n;
	unsigned int counted;		/* LABELER_* counters the frame moved */
};

struct framecache *framecache__new(void);
void framecache__free(struct framecache *c);
bool framecache__get(struct framecache *c, const void *map, uint64_t addr, bool leaf,
		     struct framecache_hit *out);
/* 0 or -ENOMEM. */
int framecache__put(struct framecache *c, const void *map, uint64_t addr, bool leaf,
		    unsigned int counted, const uint32_t *lids, const uint32_t *mids, uint32_t n);

#endif
