#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "finalize/labels.h"
#include "finalize/stackset.h"
#include "finalize/stacklists.h"

/* Label ids of each stack: ids[off[i] .. off[i + 1]), and their objects' ids (mods,
 * aligned with ids). */
struct labelled {
	uint32_t *off, *ids, *mods;
	uint32_t n, nids, cap;
};

struct stacklists {
	struct strtab labels, modules;
	struct labelled user, kernel;
	struct pq_dict dict, mdict;
	struct pq_lists lists, mlists;	/* mlists shares lists' offsets */
	uint32_t *items;		/* lists.items, growable */
	uint32_t *mitems;		/* mlists.items, same size */
	uint32_t *offsets;		/* lists.offsets, growable */
	uint32_t nitems, items_cap, offsets_cap;
	uint64_t *keys;			/* combination → list id + 1, open addressing */
	uint32_t *slots;
	uint32_t nslots;
};

int stacklists__new(struct stacklists **slp)
{
	struct stacklists *sl = calloc(1, sizeof(*sl));

	if (!sl)
		return -ENOMEM;
	sl->offsets = calloc(1, sizeof(uint32_t));
	sl->offsets_cap = 1;
	if (!sl->offsets) {
		free(sl);
		return -ENOMEM;
	}
	*slp = sl;
	return 0;
}

void stacklists__free(struct stacklists *sl)
{
	if (!sl)
		return;
	strtab__free(&sl->labels);
	strtab__free(&sl->modules);
	free(sl->user.off);
	free(sl->user.ids);
	free(sl->user.mods);
	free(sl->kernel.off);
	free(sl->kernel.ids);
	free(sl->kernel.mods);
	free(sl->items);
	free(sl->mitems);
	free(sl->offsets);
	free(sl->keys);
	free(sl->slots);
	free(sl);
}

static int push_id(struct labelled *lb, uint32_t id, uint32_t mod)
{
	if (lb->nids == lb->cap) {
		uint32_t cap = lb->cap ? lb->cap * 2 : 4096, *n = realloc(lb->ids, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		lb->ids = n;
		n = realloc(lb->mods, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		lb->mods = n;
		lb->cap = cap;
	}
	lb->mods[lb->nids] = mod;
	lb->ids[lb->nids++] = id;
	return 0;
}

/* The next LABEL_SEP-prefixed item of b from *i: its id in t, or negative errno. */
static int64_t next_item(struct strtab *t, const struct strbuf *b, size_t *i)
{
	size_t j = *i + 1;
	int64_t id;

	while (j < b->len && b->s[j] != LABEL_SEP)
		j++;
	id = strtab__intern(t, b->s + *i + 1, (uint32_t)(j - *i - 1));
	*i = j;
	return id;
}

/* One line, rewritten in place on the TTY: stacks, objects indexed, user frames named. */
static void progress_line(const struct labeler *l, const char *what, uint32_t done, uint32_t n,
			  const char *end)
{
	struct labeler_stats st;

	labeler__stats(l, &st);
	fprintf(stderr, "\rprobex: %s stacks %u/%u; objects %llu (%llu indexed), user frames %llu/%llu named%s\033[K%s",
		what, done, n, (unsigned long long)st.objects, (unsigned long long)st.objects_indexed,
		(unsigned long long)st.user_symbolized, (unsigned long long)st.user_frames,
		st.cache_hits ? ", warm cache" : "", end);
}

static int label_set(struct stacklists *sl, struct labeler *l, struct stackset *set,
		     struct labelled *lb, bool user, int progress)
{
	struct strbuf s = { 0 }, m = { 0 };
	struct stack_entry e;
	uint32_t n = stackset__count(set);
	int err = 0;

	lb->n = n;
	lb->off = calloc(n + 1, sizeof(*lb->off));
	if (!lb->off)
		return -ENOMEM;
	for (uint32_t id = 0; id < n && !err; id++) {
		stackset__get(set, id, &e);
		s.len = 0;
		m.len = 0;
		err = user ? labeler__user(l, &e, &s, &m) : labeler__kernel(l, &e, &s, &m);
		/* s is "\x1flabel\x1flabel...", m the same with one object per label. */
		for (size_t i = 0, k = 0; !err && i < s.len;) {
			int64_t lid = next_item(&sl->labels, &s, &i), mid = k < m.len ? next_item(&sl->modules, &m, &k) : -EINVAL;

			err = lid < 0 ? (int)lid : mid < 0 ? (int)mid : push_id(lb, (uint32_t)lid, (uint32_t)mid);
		}
		lb->off[id + 1] = lb->nids;
		if (progress && user && id % 1000 == 999)
			progress_line(l, "labelling", id + 1, n, "");
	}
	if (progress && user && n >= 1000)
		progress_line(l, "labelled", n, n, "\n");
	strbuf__free(&s);
	strbuf__free(&m);
	return err;
}

int stacklists__label(struct stacklists *sl, struct labeler *l, struct stackset *ustacks,
		      struct stackset *kstacks, int progress)
{
	int err = label_set(sl, l, ustacks, &sl->user, true, progress);

	if (!err)
		err = label_set(sl, l, kstacks, &sl->kernel, false, progress);
	sl->dict.strs = sl->labels.strs;
	sl->dict.lens = sl->labels.lens;
	sl->dict.n = sl->labels.n;
	sl->mdict.strs = sl->modules.strs;
	sl->mdict.lens = sl->modules.lens;
	sl->mdict.n = sl->modules.n;
	return err;
}

static int grow_slots(struct stacklists *sl)
{
	uint32_t n = sl->nslots ? sl->nslots * 2 : 1024, *slots = calloc(n, sizeof(*slots));
	uint64_t *keys = calloc(n, sizeof(*keys));

	if (!slots || !keys) {
		free(slots);
		free(keys);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < sl->nslots; i++) {
		uint32_t j;

		if (!sl->slots[i])
			continue;
		j = (uint32_t)(sl->keys[i] * 0x9e3779b97f4a7c15ull >> 32) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = sl->slots[i];
		keys[j] = sl->keys[i];
	}
	free(sl->slots);
	free(sl->keys);
	sl->slots = slots;
	sl->keys = keys;
	sl->nslots = n;
	return 0;
}

static int append_items(struct stacklists *sl, const struct labelled *lb, int32_t id)
{
	uint32_t from, to;

	if (id < 0 || (uint32_t)id >= lb->n)
		return 0;
	from = lb->off[id];
	to = lb->off[id + 1];
	if (sl->nitems + (to - from) > sl->items_cap) {
		uint32_t cap = sl->items_cap ? sl->items_cap : 4096, *n;

		while (cap < sl->nitems + (to - from))
			cap *= 2;
		n = realloc(sl->items, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		sl->items = n;
		n = realloc(sl->mitems, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		sl->mitems = n;
		sl->items_cap = cap;
	}
	memcpy(sl->items + sl->nitems, lb->ids + from, (to - from) * sizeof(uint32_t));
	memcpy(sl->mitems + sl->nitems, lb->mods + from, (to - from) * sizeof(uint32_t));
	sl->nitems += to - from;
	return 0;
}

int64_t stacklists__list(struct stacklists *sl, int32_t u, int32_t k)
{
	uint64_t key = ((uint64_t)(uint32_t)(u + 1) << 32) | (uint32_t)(k + 1);
	uint32_t j, id;
	int err;

	if (u < 0 && k < 0)
		return -1;
	if ((!sl->nslots || (sl->lists.n + 1) * 2 > sl->nslots) && grow_slots(sl))
		return -ENOMEM;
	for (j = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 32) & (sl->nslots - 1); sl->slots[j];
	     j = (j + 1) & (sl->nslots - 1))
		if (sl->keys[j] == key)
			return sl->slots[j] - 1;
	if (sl->lists.n + 2 > sl->offsets_cap) {
		uint32_t cap = sl->offsets_cap * 2 + 64, *n = realloc(sl->offsets, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		sl->offsets = n;
		sl->offsets_cap = cap;
	}
	err = append_items(sl, &sl->user, u);
	if (!err)
		err = append_items(sl, &sl->kernel, k);
	if (err)
		return err;
	id = sl->lists.n++;
	sl->offsets[id + 1] = sl->nitems;
	sl->slots[j] = id + 1;
	sl->keys[j] = key;
	sl->lists.offsets = sl->offsets;
	sl->lists.items = sl->items;
	sl->mlists = (struct pq_lists){ sl->offsets, sl->mitems, sl->lists.n };
	return id;
}

bool stacklists__may_move(const struct stacklists *sl, int32_t u, int32_t k)
{
	uint32_t need = 0;

	if (u >= 0 && (uint32_t)u < sl->user.n)
		need += sl->user.off[u + 1] - sl->user.off[u];
	if (k >= 0 && (uint32_t)k < sl->kernel.n)
		need += sl->kernel.off[k + 1] - sl->kernel.off[k];
	return sl->nitems + need > sl->items_cap || sl->lists.n + 2 > sl->offsets_cap;
}

const struct pq_dict *stacklists__dict(struct stacklists *sl)
{
	return &sl->dict;
}

const struct pq_lists *stacklists__lists(struct stacklists *sl)
{
	sl->lists.offsets = sl->offsets;
	sl->lists.items = sl->items;
	return &sl->lists;
}

const struct pq_dict *stacklists__modules_dict(struct stacklists *sl)
{
	return &sl->mdict;
}

const struct pq_lists *stacklists__modules_lists(struct stacklists *sl)
{
	sl->mlists = (struct pq_lists){ sl->offsets, sl->mitems, sl->lists.n };
	return &sl->mlists;
}
