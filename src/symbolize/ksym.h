/* Kernel symbols from /proc/kallsyms: address → "func" or "func [module]" labels. */
#ifndef PROBEX_SYMBOLIZE_KSYM_H
#define PROBEX_SYMBOLIZE_KSYM_H

#include <stddef.h>
#include <stdint.h>

struct ksyms;

/* Read /proc/kallsyms (path NULL) or the given file; for /proc/kallsyms also /proc/modules,
 * whose sizes bound each module's last symbol. Only text symbols (t/T/w/W) are kept. Must
 * be called while root: an all-zero (restricted) table is refused with EPERM (a message
 * says why) instead of producing wrong names. Returns NULL and sets errno on failure. */
struct ksyms *ksyms__load(const char *path);
/* The same in two steps: ksyms__open while root (the kernel decides at open whether a
 * reader sees addresses), ksyms__load_fd later, from any thread or after dropping root.
 * mods_fd may be -1 (no module sizes).  The caller closes both. */
int ksyms__open(int *syms_fd, int *mods_fd);
struct ksyms *ksyms__load_fd(int syms_fd, int mods_fd);
void ksyms__free(struct ksyms *k);
/* A symbol kallsyms did not have when it was read, or to name otherwise: [addr, addr + len),
 * label in module (our BPF programs: it wins over a symbol at the same address). */
struct ksym_add {
	unsigned long long addr, len;
	const char *label, *module;
};

/* Add n such symbols.  0 or -ENOMEM. */
int ksyms__add(struct ksyms *k, const struct ksym_add *a, size_t n);

/* Label for a kernel address: "func" or, for module symbols, "func [module]" (no tab, no
 * "+0x" offset: flame graph frames must not split by offset). *offset (may be NULL) gets
 * addr - symbol start. NULL when addr is below the first text symbol, past the end of kernel
 * text (_etext, _einittext), or past a group's last symbol by more than its module size (or
 * KSYMS_TAIL_MAX when unknown): a lookup never crosses a gap into the nearest lower symbol. */
const char *ksyms__label(const struct ksyms *k, unsigned long long addr, unsigned long long *offset);

/* A lazy table starts empty and asks `lookup` for the addresses ksyms__resolve is given:
 * lookup writes, for each of n addresses, the kernel's "%pS" text ("func+0xoff/0xsize",
 * then " [module]" for a module's symbol; anything else for an address it cannot name)
 * as a NUL-terminated string at out + i * stride.  0 or a negative errno.  ctx_free (may
 * be NULL) is called with ctx when the table is freed. */
typedef int (*ksyms_lookup_fn)(void *ctx, const uint64_t *addrs, size_t n, char *out,
			       size_t stride);
#define KSYMS_LABEL_MAX		256	/* stride of a lookup's answers */
#define KSYMS_RESOLVE_BATCH	64	/* addresses per lookup call */

struct ksyms *ksyms__new_lazy(ksyms_lookup_fn lookup, void *ctx, void (*ctx_free)(void *ctx));
/* Make sure every address of addrs[0..n) is named or known unnamable: those not yet are
 * asked for (duplicates once).  No-op for a table read from a file.  0 or -errno (the
 * addresses asked for in a failed call stay unnamed, later calls may ask again). */
int ksyms__resolve(struct ksyms *k, const uint64_t *addrs, size_t n);

/* Number of text symbols kept (for messages and tests). */
unsigned long ksyms__count(const struct ksyms *k);

#define KSYMS_TAIL_MAX 0x10000ULL	/* 64 KiB: reach of a last symbol of unknown size */

#endif
