/* One module's ELF symbol table (.symtab, else .dynsym, plus libdwfl's auxiliary table from
 * .gnu_debugdata) read once and sorted by address, so that naming an address is a binary
 * search instead of libdwfl's scan of every symbol per call (dwfl_module_addrinfo is
 * O(symbols), which made symbolizing large binaries cost ~0.5 ms per address).
 *
 * The answer is dwfl_module_addrinfo's, exactly: its choice between overlapping or
 * aliased symbols (global before local, closest start, binding, size) is replayed on the
 * few symbols that contain the address; the rare cases that depend on section membership
 * of sizeless labels are handed back to libdwfl. */
#ifndef PROBEX_SYMBOLIZE_ELFSYMS_H
#define PROBEX_SYMBOLIZE_ELFSYMS_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>

struct elfsyms;

/* Reads mod's symbols; names point into libdwfl's data and live as long as mod.
 * Returns NULL when out of memory. */
struct elfsyms *elfsyms__new(Dwfl_Module *mod);
void elfsyms__free(struct elfsyms *t);

/* The symbol name dwfl_module_addrinfo(mod, addr) gives, or NULL for none. */
const char *elfsyms__name(const struct elfsyms *t, Dwarf_Addr addr);

/* Symbols kept (for statistics and tests). */
size_t elfsyms__count(const struct elfsyms *t);

/* The table as bytes for the on-disk cache (symcache.c): a malloc'd buffer in *buf. */
int elfsyms__encode(const struct elfsyms *t, void **buf, size_t *len);
/* A table over elfsyms__encode's bytes, for mod (the object they were made from: its
 * rare ambiguous addresses still go to libdwfl).  The bytes are used where they lie and
 * never written; they must be 8-byte aligned.  NULL when they are malformed (then they
 * stay the caller's) or out of memory.
 *  - elfsyms__adopt: buf is malloc'd; the table owns it and frees it.
 *  - elfsyms__adopt_at: the bytes are base[off..off+len), base holding base_len bytes, an
 *    mmap (unmapped with the table) when mapped, else malloc'd (freed with it). */
struct elfsyms *elfsyms__adopt(Dwfl_Module *mod, void *buf, size_t len);
struct elfsyms *elfsyms__adopt_at(Dwfl_Module *mod, void *base, size_t base_len, size_t off,
				  size_t len, bool mapped);

#endif
