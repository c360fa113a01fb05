/* String map: byte strings to 64-bit values; keys are copied into the map's arena (not
 * common/hmap.h, which maps 64-bit keys to 32-bit values).
 * Used for the symbolizer's caches: paths, (file, offset) pairs, interned names. */
#ifndef PROBEX_SYMBOLIZE_STRMAP_H
#define PROBEX_SYMBOLIZE_STRMAP_H

#include <stddef.h>
#include <stdint.h>

#include "symbolize/arena.h"

struct strmap_slot;

struct strmap {
	struct strmap_slot *slots;
	size_t cap;		/* power of two, or 0 before the first insert */
	size_t count;
	struct arena keys;
};

/* A zeroed struct strmap is an empty map. */
void strmap__free(struct strmap *m);
/* The map's copy of key (and *val, when val is not NULL) if key is present, else NULL. */
const char *strmap__get(const struct strmap *m, const void *key, size_t len, uint64_t *val);
/* Adds key (which must be absent). Returns the map's own copy of the key, NUL-terminated,
 * valid until strmap__free, or NULL when out of memory. */
const char *strmap__put(struct strmap *m, const void *key, size_t len, uint64_t val);

#endif
