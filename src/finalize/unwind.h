/* CFI unwinding of copied user stacks (records with REC_F_USTACK_COPY), after
 * recording, as perf does: one libdwfl session per address space reports the objects
 * mapped into it at their load addresses; each sample's registers and stack bytes are
 * the thread state libdwfl unwinds from (.eh_frame / .debug_frame, frame pointers where
 * an object has no CFI).  Only the resulting frames go into the trace. */
#ifndef PROBEX_FINALIZE_UNWIND_H
#define PROBEX_FINALIZE_UNWIND_H

#include <stdint.h>

struct addrspace;
struct unwinder;

/* Per-record outcomes (each record counts once, in the first that applies). */
struct unwind_stats {
	uint64_t records;	/* records with a stack copy */
	uint64_t whole;		/* reached the outermost frame (_start, clone's thread start) */
	uint64_t no_copy;	/* no stack bytes were copied (or the copy is malformed) */
	uint64_t copy_end;	/* needed stack beyond the copy */
	uint64_t no_module;	/* a frame's pc is in no reported object (JIT, garbage) */
	uint64_t failed;	/* no CFI and no frame-pointer rule gave a caller */
	uint64_t depth;		/* the frames asked for (UNW_MAX_FRAMES) reached */
	uint64_t fast;		/* of all these, walked by cached CFI rules (cfirules.h) */
	uint64_t kernel_walk;	/* ... whose first frames (or all) the kernel walked */
	uint64_t unwound;	/* ... with stack bytes unwound here (the rest of a walk, or all) */
};

struct unwinder *unwinder__new(const struct addrspace *as);
void unwinder__free(struct unwinder *u);
/* The user stack of a REC_F_USTACK_COPY record of `fixed` bytes (len in all, spooled
 * layout: the copy after the kernel frames), for
 * address space `space`: frames leaf first into frames[max].  Returns the count (0 when
 * nothing could be unwound); sets REC_F_USTACK_TRUNC in *flags when the walk ended
 * before the outermost frame. */
uint32_t unwinder__record(struct unwinder *u, uint32_t space, const void *rec, uint32_t len,
			  uint32_t fixed, uint64_t *frames, uint32_t max, uint16_t *flags);
void unwinder__stats(const struct unwinder *u, struct unwind_stats *out);

#endif
