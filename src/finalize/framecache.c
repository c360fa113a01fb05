#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "finalize/framecache.h"

struct frame_key {
	const void *map;
	uint64_t addr;
	uint64_t leaf;
};

struct frame_entry {
	struct frame_key key;
	uint32_t first, n;	/* ids[first .. first + n) */
	unsigned int counted;
};

struct framecache {
	struct hmap index;	/* hash of the key → entry */
	struct frame_entry *e;
	uint32_t ne, cape;
	uint32_t *lids, *mids;
	uint32_t nids, caplids, capmids;
};

struct framecache *framecache__new(void)
{
	return calloc(1, sizeof(struct framecache));
}

void framecache__free(struct framecache *c)
{
	if (!c)
		return;
	hmap__free(&c->index);
	free(c->e);
	free(c->lids);
	free(c->mids);
	free(c);
}

static uint64_t key_hash(const struct frame_key *k)
{
	return hmap__fnv1a(k, sizeof(*k), HMAP_FNV_SEED);
}

bool framecache__get(struct framecache *c, const void *map, uint64_t addr, bool leaf,
		     struct framecache_hit *out)
{
	struct frame_key k = { map, addr, leaf };
	const struct frame_entry *e;
	uint32_t i;

	if (!hmap__get(&c->index, key_hash(&k), &i))
		return false;
	e = &c->e[i];
	/* Two keys of one hash: the first keeps the slot, the other is labelled each time. */
	if (memcmp(&e->key, &k, sizeof(k)))
		return false;
	*out = (struct framecache_hit){ c->lids + e->first, c->mids + e->first, e->n, e->counted };
	return true;
}

static int grow(void **p, uint32_t *cap, uint64_t need, size_t elem)
{
	uint64_t n = *cap ? *cap : 256;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if (n > UINT32_MAX)
		return -ENOMEM;
	q = realloc(*p, n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = (uint32_t)n;
	return 0;
}

int framecache__put(struct framecache *c, const void *map, uint64_t addr, bool leaf,
		    unsigned int counted, const uint32_t *lids, const uint32_t *mids, uint32_t n)
{
	struct frame_key k = { map, addr, leaf };
	uint64_t h = key_hash(&k);
	uint32_t dummy;

	if (hmap__get(&c->index, h, &dummy))
		return 0;
	if (grow((void **)&c->e, &c->cape, (uint64_t)c->ne + 1, sizeof(*c->e)) ||
	    grow((void **)&c->lids, &c->caplids, (uint64_t)c->nids + n, sizeof(*c->lids)) ||
	    grow((void **)&c->mids, &c->capmids, (uint64_t)c->nids + n, sizeof(*c->mids)))
		return -ENOMEM;
	memcpy(c->lids + c->nids, lids, n * sizeof(*lids));
	memcpy(c->mids + c->nids, mids, n * sizeof(*mids));
	c->e[c->ne] = (struct frame_entry){ k, c->nids, n, counted };
	c->nids += n;
	if (hmap__put(&c->index, h, c->ne))
		return -ENOMEM;
	c->ne++;
	return 0;
}
