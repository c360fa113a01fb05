#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "finalize/stackset.h"

struct entry {
	uint64_t hash;
	uint64_t off;		/* into frames arena */
	uint32_t space;
	uint32_t n;
	uint16_t flags;
	uint32_t uses;		/* interns of this stack: the records that carry it */
	uint64_t ts;
};

struct stackset {
	struct entry *entries;
	uint32_t count, ecap;
	uint32_t *slots;	/* open addressing: id + 1, 0 = empty */
	uint32_t nslots;	/* power of two */
	uint64_t *arena;
	uint64_t alen, acap;
};

static uint64_t hash_frames(uint32_t space, const uint64_t *f, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ space ^ ((uint64_t)n << 32);

	for (uint32_t i = 0; i < n; i++) {
		h ^= f[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 33;
	}
	return h | 1;
}

struct stackset *stackset__new(void)
{
	struct stackset *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->nslots = 1024;
	s->slots = calloc(s->nslots, sizeof(*s->slots));
	if (!s->slots) {
		free(s);
		return NULL;
	}
	return s;
}

void stackset__free(struct stackset *s)
{
	if (!s)
		return;
	free(s->entries);
	free(s->slots);
	free(s->arena);
	free(s);
}

static int stackset__rehash(struct stackset *s)
{
	uint32_t n = s->nslots * 2, *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (uint32_t id = 0; id < s->count; id++) {
		uint32_t i = (uint32_t)s->entries[id].hash & (n - 1);

		while (slots[i])
			i = (i + 1) & (n - 1);
		slots[i] = id + 1;
	}
	free(s->slots);
	s->slots = slots;
	s->nslots = n;
	return 0;
}

int64_t stackset__intern(struct stackset *s, uint32_t space, const uint64_t *frames, uint32_t n,
			 uint16_t flags, uint64_t ts)
{
	uint64_t h = hash_frames(space, frames, n);
	uint32_t i = (uint32_t)h & (s->nslots - 1);
	struct entry *e;

	for (; s->slots[i]; i = (i + 1) & (s->nslots - 1)) {
		e = &s->entries[s->slots[i] - 1];
		if (e->hash == h && e->space == space && e->n == n &&
		    !memcmp(s->arena + e->off, frames, n * sizeof(*frames))) {
			if (e->uses < UINT32_MAX)
				e->uses++;
			return s->slots[i] - 1;
		}
	}
	if (s->count == s->ecap) {
		uint32_t cap = s->ecap ? s->ecap * 2 : 1024;
		struct entry *ne = realloc(s->entries, cap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		s->entries = ne;
		s->ecap = cap;
	}
	if (s->alen + n > s->acap) {
		uint64_t cap = s->acap ? s->acap * 2 : 65536;
		uint64_t *na;

		while (cap < s->alen + n)
			cap *= 2;
		na = realloc(s->arena, cap * sizeof(*na));
		if (!na)
			return -ENOMEM;
		s->arena = na;
		s->acap = cap;
	}
	memcpy(s->arena + s->alen, frames, n * sizeof(*frames));
	s->entries[s->count] = (struct entry){ .hash = h, .off = s->alen, .space = space, .n = n,
					       .flags = flags, .uses = 1, .ts = ts };
	s->alen += n;
	s->slots[i] = ++s->count;
	if (s->count * 2 > s->nslots && stackset__rehash(s))
		return -ENOMEM;
	return s->count - 1;
}

uint32_t stackset__count(const struct stackset *s)
{
	return s->count;
}

void stackset__get(const struct stackset *s, uint32_t id, struct stack_entry *out)
{
	const struct entry *e = &s->entries[id];

	out->space = e->space;
	out->n = e->n;
	out->flags = e->flags;
	out->uses = e->uses;
	out->ts = e->ts;
	out->frames = s->arena + e->off;
}
