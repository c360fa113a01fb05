/* On-disk cache of per-object symbol tables (elfsyms), keyed by GNU build-id, so that a
 * later run over the same binaries starts labelling warm.  One file per object,
 * DIR/<build-id hex>.syms, written to a temporary name and renamed into place (concurrent
 * runs never see half an entry), with a CRC over its contents: a damaged entry is rebuilt,
 * never trusted.  The directory is kept under a size bound by deleting the least recently
 * used entries.  Process-wide: configured once before labelling. */
#ifndef PROBEX_SYMBOLIZE_SYMCACHE_H
#define PROBEX_SYMBOLIZE_SYMCACHE_H

#include <stdint.h>
#include <sys/types.h>

#include <elfutils/libdwfl.h>

struct elfsyms;

#define SYMCACHE_MAX_BYTES (256ull << 20)

/* The default directory: $XDG_CACHE_HOME/probex, else HOME/.cache/probex with home the
 * invoking user's (under sudo) or ours.  Returns 0, or -ENOENT when there is no home. */
int symcache__default_dir(const char *home, char *buf, size_t size);

/* dir NULL turns the cache off (the default).  Files and directories created are given
 * to owner_uid/owner_gid when owner_uid is not (uid_t)-1 (root labelling for a sudo user). */
int symcache__configure(const char *dir, uid_t owner_uid, gid_t owner_gid, uint64_t max_bytes);

/* mod's sorted symbol table: from the cache when a valid entry for build_id exists, else
 * built (elfsyms__new) and stored.  NULL only when out of memory. */
struct elfsyms *symcache__table(Dwfl_Module *mod, const unsigned char *build_id, int build_id_len);

/* Another kind of per-object table in the same directory and bound (DIR/<build-id>.ext,
 * the same checks): its bytes (malloc'd, *len) when a whole entry made from prov exists,
 * else NULL; and storing one. */
void *symcache__blob_load(const unsigned char *id, int id_len, const char *ext, const char *prov,
			  size_t *len);
void symcache__blob_store(const unsigned char *id, int id_len, const char *ext, const char *prov,
			  const void *data, size_t len);

struct symcache_stats {
	uint64_t hits, misses, corrupt, stored, evicted;
};
void symcache__stats(struct symcache_stats *out);

#endif
