#include <errno.h>
#include <pthread.h>
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

/* How many stacks a waiting reader lets pile up before it is woken: a wake-up per
 * stack would cost the interning thread a futex call and the reader a context switch
 * for each of tens of thousands of stacks. */
#define FEED_BATCH 64

struct stackfeed {
	pthread_mutex_t lock;
	pthread_cond_t more;
	bool closed, waiting;
	uint32_t pending;	/* stacks added since the reader last looked */
};

struct stackset {
	struct stackfeed *feed;
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

struct stackfeed *stackfeed__new(void)
{
	struct stackfeed *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->more, NULL);
	return f;
}

void stackfeed__free(struct stackfeed *f)
{
	if (!f)
		return;
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->more);
	free(f);
}

void stackfeed__close(struct stackfeed *f)
{
	pthread_mutex_lock(&f->lock);
	f->closed = true;
	pthread_cond_signal(&f->more);
	pthread_mutex_unlock(&f->lock);
}

bool stackfeed__wait(struct stackfeed *f, const struct stackset *a, uint32_t *na,
		     const struct stackset *b, uint32_t *nb)
{
	bool more;

	pthread_mutex_lock(&f->lock);
	while (!f->closed && a->count == *na && b->count == *nb) {
		f->waiting = true;
		pthread_cond_wait(&f->more, &f->lock);
	}
	f->waiting = false;
	f->pending = 0;
	more = a->count != *na || b->count != *nb;
	*na = a->count;
	*nb = b->count;
	pthread_mutex_unlock(&f->lock);
	return more;
}

void stackset__share(struct stackset *s, struct stackfeed *f)
{
	s->feed = f;
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

/* A new entry (the reader may be copying others: the caller holds the feed's lock). */
static int64_t stackset__append(struct stackset *s, uint64_t h, uint32_t space,
				const uint64_t *frames, uint32_t n, uint16_t flags, uint64_t ts)
{
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
	return s->count++;
}

int64_t stackset__intern(struct stackset *s, uint32_t space, const uint64_t *frames, uint32_t n,
			 uint16_t flags, uint64_t ts)
{
	uint64_t h = hash_frames(space, frames, n);
	uint32_t i = (uint32_t)h & (s->nslots - 1);
	struct entry *e;
	int64_t id;

	for (; s->slots[i]; i = (i + 1) & (s->nslots - 1)) {
		e = &s->entries[s->slots[i] - 1];
		if (e->hash == h && e->space == space && e->n == n &&
		    !memcmp(s->arena + e->off, frames, n * sizeof(*frames))) {
			if (e->uses < UINT32_MAX)
				e->uses++;
			return s->slots[i] - 1;
		}
	}
	if (s->feed)
		pthread_mutex_lock(&s->feed->lock);
	id = stackset__append(s, h, space, frames, n, flags, ts);
	if (s->feed) {
		if (id >= 0 && ++s->feed->pending >= FEED_BATCH && s->feed->waiting)
			pthread_cond_signal(&s->feed->more);
		pthread_mutex_unlock(&s->feed->lock);
	}
	if (id < 0)
		return id;
	s->slots[i] = (uint32_t)id + 1;
	if (s->count * 2 > s->nslots && stackset__rehash(s))
		return -ENOMEM;
	return id;
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

int stackset__copy(const struct stackset *s, uint32_t id, struct stack_entry *out, uint64_t **buf,
		   size_t *cap)
{
	const struct entry *e;
	int err = 0;

	pthread_mutex_lock(&s->feed->lock);
	e = &s->entries[id];
	if (e->n > *cap) {
		size_t ncap = e->n < 256 ? 256 : e->n;
		uint64_t *nb = realloc(*buf, ncap * sizeof(*nb));

		if (!nb) {
			err = -ENOMEM;
			goto out;
		}
		*buf = nb;
		*cap = ncap;
	}
	memcpy(*buf, s->arena + e->off, e->n * sizeof(**buf));
	*out = (struct stack_entry){ .space = e->space, .n = e->n, .flags = e->flags, .ts = e->ts,
				     .frames = *buf };
out:
	pthread_mutex_unlock(&s->feed->lock);
	return err;
}
