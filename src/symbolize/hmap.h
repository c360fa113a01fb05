/* Hash map from byte strings to 64-bit values; keys are copied into the map's arena.
 * Used for the symbolizer's caches: paths, (file, offset) pairs, interned names. */
#ifndef PROBEX_SYMBOLIZE_HMAP_H
#define PROBEX_SYMBOLIZE_HMAP_H

#include <stddef.h>
#include <stdint.h>

#include "symbolize/arena.h"

struct hmap_slot;

struct hmap {
	struct hmap_slot *slots;
	size_t cap;		/* power of two, or 0 before the first insert */
	size_t count;
	struct arena keys;
};

/* A zeroed struct hmap is an empty map. */
void hmap__free(struct hmap *m);
/* The map's copy of key (and *val, when val is not NULL) if key is present, else NULL. */
const char *hmap__get(const struct hmap *m, const void *key, size_t len, uint64_t *val);
/* Adds key (which must be absent). Returns the map's own copy of the key, NUL-terminated,
 * valid until hmap__free, or NULL when out of memory. */
const char *hmap__put(struct hmap *m, const void *key, size_t len, uint64_t val);

#endif
