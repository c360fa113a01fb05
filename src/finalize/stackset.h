/* Deduplicated stacks: (address space, frames) → dense id, so each unique stack is
 * symbolized once and stored once. */
#ifndef PROBEX_FINALIZE_STACKSET_H
#define PROBEX_FINALIZE_STACKSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stackset;

struct stack_entry {
	uint32_t space;		/* address-space id (user stacks) or 0 (kernel stacks) */
	uint32_t n;
	uint16_t flags;		/* REC_F_*_TRUNC of the first record that had it */
	uint32_t uses;		/* records carrying it */
	uint64_t ts;		/* time of the first record that had it */
	const uint64_t *frames;	/* leaf first, as captured */
};

/* A stackset may be read by one other thread while its owner interns (labelling runs
 * beside indexing): both sets of a finalization share one feed, which orders the
 * owner's additions with the reader's copies and wakes the reader when stacks arrive. */
struct stackfeed;

struct stackfeed *stackfeed__new(void);
void stackfeed__free(struct stackfeed *f);
/* No more stacks will be added: wakes the reader for the last time. */
void stackfeed__close(struct stackfeed *f);
/* Reader: wait until a or b holds more than *na / *nb stacks or the feed is closed, then
 * set *na and *nb to their counts; false when the feed is closed and nothing is new. */
bool stackfeed__wait(struct stackfeed *f, const struct stackset *a, uint32_t *na,
		     const struct stackset *b, uint32_t *nb);

struct stackset *stackset__new(void);
void stackset__free(struct stackset *s);
/* Id of the stack (added if new), or negative errno. */
int64_t stackset__intern(struct stackset *s, uint32_t space, const uint64_t *frames, uint32_t n,
			 uint16_t flags, uint64_t ts);
uint32_t stackset__count(const struct stackset *s);
void stackset__get(const struct stackset *s, uint32_t id, struct stack_entry *out);
/* Owner: share s through f from now on (additions take f's lock). */
void stackset__share(struct stackset *s, struct stackfeed *f);
/* Reader of a shared set: stack id copied out (frames into *buf, grown as needed; uses
 * left 0, as it changes under the reader).  0 or -ENOMEM. */
int stackset__copy(const struct stackset *s, uint32_t id, struct stack_entry *out, uint64_t **buf,
		   size_t *cap);

#endif
