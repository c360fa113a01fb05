#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "finalize/argvcol.h"
#include "parquet/strtab.h"

static int grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t c = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	q = realloc(*p, (size_t)c * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

int argvcol__add(struct argvcol *a, uint64_t key, const char *buf, uint32_t len)
{
	uint32_t cap_keys = a->cap_lists;
	int err;

	if ((err = grow((void **)&a->offsets, &a->cap_lists, a->nlists + 2, sizeof(uint32_t))))
		return err;
	if ((err = grow((void **)&a->keys, &cap_keys, a->cap_lists, sizeof(uint64_t))))
		return err;
	a->offsets[a->nlists] = a->nitems;
	/* Arguments are NUL-terminated; a cut line's last one is not. */
	for (uint32_t i = 0; i < len;) {
		const char *s = buf + i;
		uint32_t n = (uint32_t)strnlen(s, len - i);
		int64_t id = strtab__intern(&a->strs, s, n);

		if (id < 0)
			return (int)id;
		if ((err = grow((void **)&a->items, &a->cap_items, a->nitems + 1, sizeof(uint32_t))))
			return err;
		a->items[a->nitems++] = (uint32_t)id;
		i += n + 1;
	}
	a->keys[a->nlists++] = key;
	a->offsets[a->nlists] = a->nitems;
	return 0;
}

static bool swap_lists(struct argvcol *a, uint32_t *order)
{
	uint32_t *off = malloc((a->nlists + 1) * sizeof(*off)), *items = malloc((a->nitems + 1) * sizeof(*items));
	uint64_t *keys = malloc((a->nlists + 1) * sizeof(*keys));
	uint32_t k = 0;

	if (!off || !items || !keys) {
		free(off);
		free(items);
		free(keys);
		return false;	/* left in spool order: lookups then scan */
	}
	for (uint32_t i = 0; i < a->nlists; i++) {
		uint32_t o = order[i];

		off[i] = k;
		keys[i] = a->keys[o];
		for (uint32_t j = a->offsets[o]; j < a->offsets[o + 1]; j++)
			items[k++] = a->items[j];
	}
	off[a->nlists] = k;
	free(a->offsets);
	free(a->items);
	free(a->keys);
	a->offsets = off;
	a->items = items;
	a->keys = keys;
	return true;
}

static const uint64_t *sort_keys;

static int key_cmp(const void *x, const void *y)
{
	uint64_t a = sort_keys[*(const uint32_t *)x], b = sort_keys[*(const uint32_t *)y];

	return a < b ? -1 : a > b;
}

void argvcol__finish(struct argvcol *a)
{
	a->sorted = true;
	for (uint32_t i = 1; i < a->nlists && a->sorted; i++)
		a->sorted = a->keys[i - 1] < a->keys[i];
	if (!a->sorted) {
		uint32_t *order = malloc((a->nlists + 1) * sizeof(*order));

		if (order) {
			for (uint32_t i = 0; i < a->nlists; i++)
				order[i] = i;
			sort_keys = a->keys;
			qsort(order, a->nlists, sizeof(*order), key_cmp);
			a->sorted = swap_lists(a, order);
			free(order);
		}
	}
	a->dict = (struct pq_dict){ a->strs.strs, a->strs.lens, a->strs.n };
	a->lists = (struct pq_lists){ a->offsets, a->items, a->nlists };
}

int64_t argvcol__list(const struct argvcol *a, uint64_t key)
{
	uint64_t lo = 0, hi = a->nlists;

	if (!a->sorted) {
		for (uint32_t i = 0; i < a->nlists; i++)
			if (a->keys[i] == key)
				return i;
		return -1;
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (a->keys[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < a->nlists && a->keys[lo] == key)
		return (int64_t)lo;
	return -1;
}

void argvcol__free(struct argvcol *a)
{
	intern__free(&a->strs);
	free(a->offsets);
	free(a->items);
	free(a->keys);
	memset(a, 0, sizeof(*a));
}
