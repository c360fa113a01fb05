/* The raw material of a trace's stacks — every unique stack's addresses and every
 * address space's mappings with build-ids — stored in the file's metadata
 * (probex.symbol_data: base64 of zstd text) so `probex resymbolize` can redo the labels
 * later, e.g. after installing debug symbols. */
#ifndef PROBEX_FINALIZE_SYMDATA_H
#define PROBEX_FINALIZE_SYMDATA_H

struct addrspace;
struct jitmaps;
struct stackset;

#define META_SYMBOL_DATA "probex.symbol_data"

/* Returns a malloc'd metadata value, or NULL on allocation failure. */
/* jit: "j SPACE ADDR SIZE NAME" lines of the JIT names used and "p FRAME LABEL" lines of
 * the Python frames' labels (labeler__jit_used), or NULL. */
char *symdata__encode(const struct addrspace *as, const struct stackset *ustacks,
		      const struct stackset *kstacks, const char *jit);
/* Rebuild address spaces, stack sets (same ids) and, when given, the JIT names (jit) and
 * Python frames' labels (py) from a metadata value. */
struct pyframes;
int symdata__decode(const char *value, struct addrspace *as, struct stackset *ustacks,
		    struct stackset *kstacks, struct jitmaps *jit, struct pyframes *py);

#endif
