/* Deduplicated stacks: (address space, frames) → dense id, so each unique stack is
 * symbolized once and stored once. */
#ifndef PROBEX_FINALIZE_STACKSET_H
#define PROBEX_FINALIZE_STACKSET_H

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

struct stackset *stackset__new(void);
void stackset__free(struct stackset *s);
/* Id of the stack (added if new), or negative errno. */
int64_t stackset__intern(struct stackset *s, uint32_t space, const uint64_t *frames, uint32_t n,
			 uint16_t flags, uint64_t ts);
uint32_t stackset__count(const struct stackset *s);
void stackset__get(const struct stackset *s, uint32_t id, struct stack_entry *out);

#endif
