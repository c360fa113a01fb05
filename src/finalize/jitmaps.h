/* The JIT maps copied while recording (SPOOL_PERFMAP items), per address space: names
 * for frames in anonymous executable mappings. */
#ifndef PROBEX_FINALIZE_JITMAPS_H
#define PROBEX_FINALIZE_JITMAPS_H

#include <stddef.h>
#include <stdint.h>

struct addrspace;
struct jitmaps;

struct jitmaps *jitmaps__new(void);
void jitmaps__free(struct jitmaps *j);
/* Keep an item (its data must stay valid until jitmaps__build: the spool is mapped). */
int jitmaps__add_item(struct jitmaps *j, const void *data, uint32_t len);
/* Parse the items into the address space each was copied from. */
int jitmaps__build(struct jitmaps *j, const struct addrspace *as);
/* Add perf-map text to space's map directly (symbol data read back by resymbolize). */
int jitmaps__add_text(struct jitmaps *j, uint32_t space, const char *text, size_t len);
/* The JIT symbol covering addr in space, or NULL. */
const char *jitmaps__name(struct jitmaps *j, uint32_t space, uint64_t addr);
/* Map lines parsed, and lines skipped as malformed. */
void jitmaps__counts(const struct jitmaps *j, uint64_t *entries, uint64_t *bad);

#endif
