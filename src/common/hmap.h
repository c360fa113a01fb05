/* Open-addressing map from 64-bit keys to 32-bit values, for the hot loops that intern
 * pids, stacks and event types over millions of rows. */
#ifndef PROBEX_COMMON_HMAP_H
#define PROBEX_COMMON_HMAP_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct hmap_slot {
	uint64_t key;
	uint32_t val;
	bool used;
};

struct hmap {
	struct hmap_slot *slots;
	uint64_t cap, n;	/* cap is a power of two */
};

static inline uint64_t hmap__hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* FNV-1a over n bytes, continuing from h (HMAP_FNV_SEED to start): keys made of strings
 * and byte runs, before hmap__hash spreads them. */
#define HMAP_FNV_SEED 0xcbf29ce484222325ull

static inline uint64_t hmap__fnv1a(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static inline void hmap__free(struct hmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}

static inline int hmap__grow(struct hmap *m)
{
	uint64_t cap = m->cap ? m->cap * 2 : 64;
	struct hmap_slot *s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (uint64_t i = 0; i < m->cap; i++) {
		uint64_t j;

		if (!m->slots[i].used)
			continue;
		for (j = hmap__hash(m->slots[i].key) & (cap - 1); s[j].used; j = (j + 1) & (cap - 1))
			;
		s[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = s;
	m->cap = cap;
	return 0;
}

/* The slot for key: found (used) or where to insert it (not used). */
static inline struct hmap_slot *hmap__slot(struct hmap *m, uint64_t key)
{
	uint64_t j;

	for (j = hmap__hash(key) & (m->cap - 1); m->slots[j].used; j = (j + 1) & (m->cap - 1))
		if (m->slots[j].key == key)
			break;
	return &m->slots[j];
}

static inline bool hmap__get(const struct hmap *m, uint64_t key, uint32_t *val)
{
	struct hmap_slot *s;

	if (!m->cap)
		return false;
	s = hmap__slot((struct hmap *)m, key);
	if (s->used)
		*val = s->val;
	return s->used;
}

/* Insert or overwrite. */
static inline int hmap__put(struct hmap *m, uint64_t key, uint32_t val)
{
	struct hmap_slot *s;

	if ((m->n + 1) * 2 > m->cap && hmap__grow(m))
		return -ENOMEM;
	s = hmap__slot(m, key);
	if (!s->used) {
		s->used = true;
		s->key = key;
		m->n++;
	}
	s->val = val;
	return 0;
}

#endif
