/* Stack labels in the trace's format: "[user]", user frames root-first (an inline
 * chain gives several labels, outermost first), then "[kernel]" and kernel frames. */
#ifndef PROBEX_FINALIZE_LABELS_H
#define PROBEX_FINALIZE_LABELS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "finalize/stackset.h"

struct addrspace;
struct ksyms;
struct labeler;

#define LABEL_SEP '\x1f'	/* joins labels of one stack; never inside a label */

/* objects*: distinct ELF objects (by build-id, else inode and mtime) opened, failed and
 * indexed (symbol table sorted); build_id_mismatch: frames left file+offset because the
 * file on disk is no longer the object that was mapped. */
struct labeler_stats {
	uint64_t user_frames, user_symbolized, user_mapped, kernel_frames, kernel_symbolized;
	uint64_t objects, objects_failed, objects_indexed, build_id_mismatch;
	/* User stacks cut where a frame left executable code: unique stacks, and the
	 * records carrying them. */
	uint64_t user_cut_stacks, user_cut_records;
	uint64_t user_jit;	/* frames named by a JIT map */
	uint64_t cache_hits, cache_misses, cache_corrupt;	/* on-disk symbol cache */
};

#define META_SYMBOLIZE "probex.symbolize"	/* JSON object: labeller counters */

/* The labeller's counters as the JSON value of META_SYMBOLIZE (malloc'd; NULL on ENOMEM). */
char *labeler__stats_json(const struct labeler_stats *st);

struct labeler *labeler__new(const struct addrspace *as, struct ksyms *ks);
void labeler__free(struct labeler *l);
/* Name frames in anonymous executable mappings from these JIT maps (not owned). */
struct jitmaps;
void labeler__set_jitmaps(struct labeler *l, struct jitmaps *j);
/* Label Python frames merged into user stacks from these code objects (not owned). */
struct pyframes;
void labeler__set_pyframes(struct labeler *l, const struct pyframes *py);
/* Symbol-data lines for the JIT names and Python frame labels given so far ("" when none). */
const char *labeler__jit_used(const struct labeler *l);
/* Append the labels of a user stack (starting with "[user]") joined by LABEL_SEP, and
 * when mods is given, each label's object the same way (aligned: one per label; the file
 * path, "[vdso]", "//anon", or "" for the [user] and [truncated] marks). */
int labeler__user(struct labeler *l, const struct stack_entry *e, struct strbuf *out,
		  struct strbuf *mods);
/* labeler__user in steps, for a caller that keeps the labels of frames it has seen
 * (framecache.h): the frames to label (frames[0..n), leaf first; they are labelled root
 * first) and whether the stack is marked truncated; the marks; one frame's labels, with
 * the counters it moved (LABELER_*), which labeler__count_frame moves again for a frame
 * whose labels are reused.  A frame's labels depend only on its address, whether it is
 * the leaf, and the mapping labeler__frame_mapping finds for it (NULL: none). */
#define LABELER_MAPPED 1u	/* in a file mapping */
#define LABELER_SYMBOLIZED 2u	/* named from its file */
#define LABELER_JIT 4u		/* named from a JIT map (also written to the symbol data) */
uint32_t labeler__user_frames(struct labeler *l, const struct stack_entry *e, bool *trunc);
void labeler__user_marks(struct strbuf *out, struct strbuf *mods, bool trunc);
const void *labeler__frame_mapping(struct labeler *l, const struct stack_entry *e, uint32_t i);
unsigned int labeler__user_frame(struct labeler *l, const struct stack_entry *e, uint32_t i,
				 struct strbuf *out, struct strbuf *mods);
void labeler__count_frame(struct labeler *l, unsigned int counted);
/* Same for a kernel stack, starting with "[kernel]"; objects are "[kernel.kallsyms]" or
 * a module's name. */
int labeler__kernel(struct labeler *l, const struct stack_entry *e, struct strbuf *out,
		    struct strbuf *mods);
void labeler__stats(const struct labeler *l, struct labeler_stats *out);
/* user_cut_records is counted by the caller, once every record is in (a stack's uses
 * grow while it is labelled beside the indexer). */
void labeler__add_cut_records(struct labeler *l, uint64_t records);

#endif
