#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/intern.h"

static uint64_t hash(const char *s, uint32_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
	return h;
}

static int grow_slots(struct intern *t)
{
	uint32_t n = t->nslots ? t->nslots * 2 : 256, *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (uint32_t id = 0; id < t->n; id++) {
		uint32_t i = (uint32_t)hash(t->strs[id], t->lens[id]) & (n - 1);

		while (s[i])
			i = (i + 1) & (n - 1);
		s[i] = id + 1;
	}
	free(t->slots);
	t->slots = s;
	t->nslots = n;
	return 0;
}

int64_t intern__add(struct intern *t, const char *s, uint32_t len)
{
	uint32_t i;
	char *copy;

	if (!t->slots && grow_slots(t))
		return -ENOMEM;
	for (i = (uint32_t)hash(s, len) & (t->nslots - 1); t->slots[i]; i = (i + 1) & (t->nslots - 1)) {
		uint32_t id = t->slots[i] - 1;

		if (t->lens[id] == len && !memcmp(t->strs[id], s, len))
			return id;
	}
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 64;
		const char **ns = realloc(t->strs, cap * sizeof(*ns));
		uint32_t *nl;

		if (!ns)
			return -ENOMEM;
		t->strs = ns;
		nl = realloc(t->lens, cap * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		t->lens = nl;
		t->cap = cap;
	}
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, len);
	copy[len] = 0;
	t->strs[t->n] = copy;
	t->lens[t->n] = len;
	t->slots[i] = ++t->n;
	if (t->n * 2 > t->nslots && grow_slots(t))
		return -ENOMEM;
	return t->n - 1;
}

void intern__free(struct intern *t)
{
	for (uint32_t i = 0; i < t->n; i++)
		free((char *)t->strs[i]);
	free(t->strs);
	free(t->lens);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
