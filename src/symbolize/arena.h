/* Bump allocator for data that lives as long as its owner (symbol names, cached results). */
#ifndef PROBEX_SYMBOLIZE_ARENA_H
#define PROBEX_SYMBOLIZE_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head;
	char *cur;
	size_t left;
	size_t total;		/* bytes handed out, for statistics */
};

/* A zeroed struct arena is ready to use. Returns NULL when out of memory. */
void *arena__alloc(struct arena *a, size_t size);
char *arena__strndup(struct arena *a, const char *s, size_t len);
void arena__free(struct arena *a);

#endif
