/* User-space symbolization: (ELF file, file offset) → function names with inline chains,
 * through elfutils libdwfl/libdw, cached so that each file is opened once and each
 * (file, offset) resolved once. Single-threaded. */
#ifndef PROBEX_SYMBOLIZE_USYM_H
#define PROBEX_SYMBOLIZE_USYM_H

#include <stdbool.h>
#include <stddef.h>

struct usym;	/* caches: one Dwfl/module per file (by path and by inode), results per (file, offset) */

struct usym *usym__new(void);
/* Whether results carry file and line (default on).  Off saves decoding line tables;
 * probex's labels do not show them.  Set before the first lookup. */
void usym__set_lines(struct usym *u, bool on);
void usym__free(struct usym *u);

struct usym_result {
	const char *const *names;	/* inline chain: outermost (physical) function first, innermost inlinee last */
	unsigned int n;			/* >= 1 on success */
	const char *file;		/* source file of the innermost frame, or NULL */
	int line;			/* 0 when unknown */
};

/* Symbolize a code address given as an offset into an ELF file
 * (offset = runtime addr - mapping start + mapping pgoff).
 * path: the file as named in the traced process's mount namespace (spaces allowed; strip a
 *       " (deleted)" suffix first); root: a prefix such as "/proc/1234/root" to reach it
 *       (containers), or NULL. When root is given but unreachable (the process is gone) and
 *       build_id is given, the same path in our own namespace is tried: the build-id check
 *       makes that safe.
 * build_id (may be NULL or build_id_len 0): if given and the file's GNU build-id differs
 *       (or the file has none), fail with -ESTALE rather than return wrong names.
 * The caller already subtracts 1 from return addresses (non-leaf frames).
 * Returns 0 and fills *out (memory owned by u, valid until usym__free), or:
 *   -ENOENT   the file is fine but nothing names that offset (outside its PT_LOAD
 *             segments, or no DWARF function and no ELF symbol there);
 *   -ENXIO    the file does not exist (reported apart from -ENOENT on purpose);
 *   -EACCES/… the file cannot be opened (open(2)'s errno);
 *   -ENOEXEC  not an ELF file;
 *   -ESTALE   build-id mismatch.
 * Results, including failures, are cached: each unique (object, offset) costs once and each
 * object is opened once: a build-id already open answers without opening path at all. */
int usym__lookup(struct usym *u, const char *path, const char *root, const unsigned char *build_id,
		 size_t build_id_len, unsigned long long file_offset, struct usym_result *out);

/* Read an ELF file's GNU build-id (for recording at trace time) into buf.
 * Returns its length (>0), 0 if the file has none, or a negative errno (-ERANGE when size
 * is too small, -ENOEXEC when not ELF). */
int usym__read_build_id(const char *path, unsigned char *buf, size_t size);

/* Counters for the end-of-run summary. resolved + unresolved == lookups (every call counts
 * by its outcome); cache_hits are calls answered without new DWARF work; files_opened and
 * files_failed count distinct objects (by build-id, else inode and mtime); objects_indexed
 * those whose symbol table was read and sorted; build_id_mismatch the lookups refused
 * because the file no longer is the one recorded. */
struct usym_stats {
	unsigned long lookups, cache_hits, resolved, unresolved, files_opened, files_failed;
	unsigned long objects_indexed, build_id_mismatch;
};
void usym__stats(const struct usym *u, struct usym_stats *out);

#endif
