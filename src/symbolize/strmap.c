#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "symbolize/strmap.h"

struct strmap_slot {
	uint64_t hash;
	const char *key;	/* NULL: empty slot */
	size_t len;
	uint64_t val;
};

/* FNV-1a, then a murmur3 finalizer so that the low bits used for the bucket index depend
 * on every input byte (offsets differ mostly in their low bytes, paths in their tails). */
static uint64_t strmap__hash(const void *key, size_t len)
{
	return hmap__hash(hmap__fnv1a(key, len, HMAP_FNV_SEED));
}

static struct strmap_slot *strmap__find(const struct strmap *m, uint64_t hash, const void *key, size_t len)
{
	size_t mask = m->cap - 1;

	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct strmap_slot *s = &m->slots[i];

		if (!s->key)
			return s;
		if (s->hash == hash && s->len == len && !memcmp(s->key, key, len))
			return s;
	}
}

static int strmap__grow(struct strmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	struct strmap_slot *old = m->slots, *slots;
	size_t ocap = m->cap;

	slots = calloc(ncap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	m->slots = slots;
	m->cap = ncap;
	for (size_t i = 0; i < ocap; i++) {
		if (old[i].key)
			*strmap__find(m, old[i].hash, old[i].key, old[i].len) = old[i];
	}
	free(old);
	return 0;
}

const char *strmap__get(const struct strmap *m, const void *key, size_t len, uint64_t *val)
{
	struct strmap_slot *s;

	if (!m->count)
		return NULL;
	s = strmap__find(m, strmap__hash(key, len), key, len);
	if (s->key && val)
		*val = s->val;
	return s->key;
}

const char *strmap__put(struct strmap *m, const void *key, size_t len, uint64_t val)
{
	uint64_t hash = strmap__hash(key, len);
	struct strmap_slot *s;
	char *copy;

	/* Keep the load factor under 1/2: probes stay short with linear probing. */
	if ((m->count + 1) * 2 > m->cap && strmap__grow(m))
		return NULL;
	copy = arena__strndup(&m->keys, key, len);
	if (!copy)
		return NULL;
	s = strmap__find(m, hash, key, len);
	s->hash = hash;
	s->key = copy;
	s->len = len;
	s->val = val;
	m->count++;
	return copy;
}

void strmap__free(struct strmap *m)
{
	free(m->slots);
	arena__free(&m->keys);
	memset(m, 0, sizeof(*m));
}
