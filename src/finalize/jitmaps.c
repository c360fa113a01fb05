#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "finalize/jitmaps.h"
#include "spool/spool.h"
#include "symbolize/addrspace.h"
#include "symbolize/perfmap.h"

struct item {
	const struct spool_perfmap *h;
	uint32_t len;		/* bytes after the header */
};

struct space_map {
	uint32_t space;
	struct perfmap *pm;
};

struct jitmaps {
	struct item *items;
	size_t nitems, icap;
	struct space_map *maps;
	size_t nmaps;
	uint64_t bad_items;
};

struct jitmaps *jitmaps__new(void)
{
	return calloc(1, sizeof(struct jitmaps));
}

void jitmaps__free(struct jitmaps *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->nmaps; i++)
		perfmap__free(j->maps[i].pm);
	free(j->maps);
	free(j->items);
	free(j);
}

int jitmaps__add_item(struct jitmaps *j, const void *data, uint32_t len)
{
	if (len < sizeof(struct spool_perfmap)) {
		j->bad_items++;
		return 0;
	}
	if (j->nitems == j->icap) {
		size_t cap = j->icap ? j->icap * 2 : 16;
		struct item *n = realloc(j->items, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		j->items = n;
		j->icap = cap;
	}
	j->items[j->nitems++] = (struct item){ data, len - (uint32_t)sizeof(struct spool_perfmap) };
	return 0;
}

static struct perfmap *map_of(struct jitmaps *j, uint32_t space, bool create)
{
	struct space_map *n;

	for (size_t i = 0; i < j->nmaps; i++)
		if (j->maps[i].space == space)
			return j->maps[i].pm;
	if (!create)
		return NULL;
	n = realloc(j->maps, (j->nmaps + 1) * sizeof(*n));
	if (!n)
		return NULL;
	j->maps = n;
	n[j->nmaps].space = space;
	n[j->nmaps].pm = perfmap__new();
	return n[j->nmaps].pm ? n[j->nmaps++].pm : NULL;
}

int jitmaps__build(struct jitmaps *j, const struct addrspace *as)
{
	for (size_t i = 0; i < j->nitems; i++) {
		const struct spool_perfmap *h = j->items[i].h;
		uint32_t space = addrspace__space_at(as, h->tgid, h->ts);
		struct perfmap *pm;
		int err;

		if (!space)
			continue;
		pm = map_of(j, space, true);
		if (!pm)
			return -ENOMEM;
		err = perfmap__add(pm, (const char *)(h + 1), j->items[i].len);
		if (err)
			return err;
	}
	return 0;
}

int jitmaps__add_text(struct jitmaps *j, uint32_t space, const char *text, size_t len)
{
	struct perfmap *pm = map_of(j, space, true);

	return pm ? perfmap__add(pm, text, len) : -ENOMEM;
}

const char *jitmaps__name(struct jitmaps *j, uint32_t space, uint64_t addr)
{
	struct perfmap *pm = j ? map_of(j, space, false) : NULL;

	return pm ? perfmap__lookup(pm, addr) : NULL;
}

void jitmaps__counts(const struct jitmaps *j, uint64_t *entries, uint64_t *bad)
{
	*entries = 0;
	*bad = j->bad_items;
	for (size_t i = 0; i < j->nmaps; i++) {
		uint64_t e, b;

		perfmap__counts(j->maps[i].pm, &e, &b);
		*entries += e;
		*bad += b;
	}
}
