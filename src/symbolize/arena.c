#include <stdlib.h>
#include <string.h>

#include "symbolize/arena.h"

#define ARENA_CHUNK	(64 * 1024)
#define ARENA_ALIGN	8	/* pointers and 64-bit values; nothing cached needs more */

struct arena_chunk {
	struct arena_chunk *next;
	max_align_t data[];
};

void *arena__alloc(struct arena *a, size_t size)
{
	size_t need = (size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
	char *p;

	if (need > a->left) {
		/* Oversized requests get a chunk of their own so the current one is not wasted
		 * by a single big result. */
		size_t cap = need > ARENA_CHUNK / 4 ? need : ARENA_CHUNK;
		struct arena_chunk *c = malloc(sizeof(*c) + cap);

		if (!c)
			return NULL;
		c->next = a->head;
		a->head = c;
		if (cap != ARENA_CHUNK) {
			a->total += need;
			return c->data;
		}
		a->cur = (char *)c->data;
		a->left = cap;
	}
	p = a->cur;
	a->cur += need;
	a->left -= need;
	a->total += need;
	return p;
}

char *arena__strndup(struct arena *a, const char *s, size_t len)
{
	char *p = arena__alloc(a, len + 1);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void arena__free(struct arena *a)
{
	struct arena_chunk *c = a->head, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	memset(a, 0, sizeof(*a));
}
