#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "finalize/framecache.h"
#include "finalize/labels.h"
#include "finalize/stackset.h"
#include "finalize/stacklists.h"

/* Label ids of each stack: ids[off[i] .. off[i + 1]), and their objects' ids (mods,
 * aligned with ids). */
struct labelled {
	uint32_t *off, *ids, *mods;
	uint32_t n, nids, cap, off_cap;
};

/* Labelling beside indexing: a thread labels stacks as the indexer finds them. */
struct label_job {
	pthread_t thread;
	bool started;
	struct labeler *l;
	struct stackset *user, *kernel;
	struct stackfeed *feed;		/* NULL: every stack is there already */
	int progress;
	int err;
	uint32_t *cut;			/* user stacks cut where a frame left code */
	uint32_t ncut, cut_cap;
	struct framecache *frames;	/* user frames' label ids, for the next stacks */
};

struct stacklists {
	struct intern labels, modules;
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
	struct label_job job;
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
	intern__free(&sl->labels);
	intern__free(&sl->modules);
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
	free(sl->job.cut);
	framecache__free(sl->job.frames);
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
static int64_t next_item(struct intern *t, const struct strbuf *b, size_t *i)
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

static int push_off(struct labelled *lb)
{
	if (lb->n + 2 > lb->off_cap) {
		uint32_t cap = lb->off_cap ? lb->off_cap * 2 : 1024, *n = realloc(lb->off, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		if (!lb->off_cap)
			n[0] = 0;
		lb->off = n;
		lb->off_cap = cap;
	}
	lb->off[++lb->n] = lb->nids;
	return 0;
}

static int push_cut(struct label_job *j, uint32_t id)
{
	if (j->ncut == j->cut_cap) {
		uint32_t cap = j->cut_cap ? j->cut_cap * 2 : 64, *n = realloc(j->cut, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		j->cut = n;
		j->cut_cap = cap;
	}
	j->cut[j->ncut++] = id;
	return 0;
}

/* s holds "\x1flabel\x1flabel...", m the same with one object per label: into lb. */
static int push_items(struct stacklists *sl, struct labelled *lb, const struct strbuf *s,
		      const struct strbuf *m)
{
	int err = s->err ? s->err : m->err;

	for (size_t i = 0, k = 0; !err && i < s->len;) {
		int64_t lid = next_item(&sl->labels, s, &i), mid = k < m->len ? next_item(&sl->modules, m, &k) : -EINVAL;

		err = lid < 0 ? (int)lid : mid < 0 ? (int)mid : push_id(lb, (uint32_t)lid, (uint32_t)mid);
	}
	return err;
}

/* One user frame: its labels from the frame cache, or labelled and then kept there (not
 * a frame named by a JIT map, whose use the symbol data records each time). */
static int label_user_frame(struct stacklists *sl, struct labelled *lb, const struct stack_entry *e,
			    uint32_t i, struct strbuf *s, struct strbuf *m)
{
	struct label_job *j = &sl->job;
	const void *map = labeler__frame_mapping(j->l, e, i);
	struct framecache_hit hit;
	uint32_t first = lb->nids;
	unsigned int counted;
	int err;

	if (framecache__get(j->frames, map, e->frames[i], i == 0, &hit)) {
		labeler__count_frame(j->l, hit.counted);
		for (uint32_t k = 0; k < hit.n; k++)
			if ((err = push_id(lb, hit.lids[k], hit.mids[k])))
				return err;
		return 0;
	}
	s->len = 0;
	m->len = 0;
	counted = labeler__user_frame(j->l, e, i, s, m);
	err = push_items(sl, lb, s, m);
	if (!err && !(counted & LABELER_JIT))
		err = framecache__put(j->frames, map, e->frames[i], i == 0, counted, lb->ids + first,
				      lb->mods + first, lb->nids - first);
	return err;
}

static int label_user(struct stacklists *sl, struct labelled *lb, const struct stack_entry *e,
		      struct strbuf *s, struct strbuf *m)
{
	struct label_job *j = &sl->job;
	bool trunc;
	uint32_t n = labeler__user_frames(j->l, e, &trunc);
	int err;

	if (!j->frames && !(j->frames = framecache__new()))
		return -ENOMEM;
	s->len = 0;
	m->len = 0;
	labeler__user_marks(s, m, trunc);
	err = push_items(sl, lb, s, m);
	for (uint32_t i = n; !err && i-- > 0;)
		err = label_user_frame(sl, lb, e, i, s, m);
	return err;
}

/* Label stack lb->n of set (the next one) into lb. */
static int label_next(struct stacklists *sl, struct stackset *set, struct labelled *lb, bool user,
		      struct strbuf *s, struct strbuf *m, uint64_t **buf, size_t *cap)
{
	struct label_job *j = &sl->job;
	struct labeler_stats before, after;
	struct stack_entry e;
	uint32_t id = lb->n;
	int err = 0;

	if (j->feed)
		err = stackset__copy(set, id, &e, buf, cap);
	else
		stackset__get(set, id, &e);
	if (err)
		return err;
	labeler__stats(j->l, &before);
	if (user) {
		err = label_user(sl, lb, &e, s, m);
	} else {
		s->len = 0;
		m->len = 0;
		err = labeler__kernel(j->l, &e, s, m);
		if (!err)
			err = push_items(sl, lb, s, m);
	}
	labeler__stats(j->l, &after);
	if (!err && after.user_cut_stacks != before.user_cut_stacks)
		err = push_cut(j, id);
	return err ? err : push_off(lb);
}

/* Label stacks until both sets are done: with a feed, as the indexer adds them. */
static void *label_main(void *arg)
{
	struct stacklists *sl = arg;
	struct label_job *j = &sl->job;
	struct strbuf s = { 0 }, m = { 0 };
	/* With a feed the counts are read under its lock only (the owner is adding). */
	uint32_t nu = j->feed ? 0 : stackset__count(j->user), nk = j->feed ? 0 : stackset__count(j->kernel);
	uint64_t *buf = NULL;
	size_t cap = 0;
	int err = 0;

	for (bool more = true; more && !err;) {
		while (!err && sl->user.n < nu) {
			err = label_next(sl, j->user, &sl->user, true, &s, &m, &buf, &cap);
			if (j->progress && sl->user.n % 1000 == 0)
				progress_line(j->l, "labelling", sl->user.n, nu, "");
		}
		while (!err && sl->kernel.n < nk)
			err = label_next(sl, j->kernel, &sl->kernel, false, &s, &m, &buf, &cap);
		more = j->feed && stackfeed__wait(j->feed, j->user, &nu, j->kernel, &nk);
	}
	if (j->progress && nu >= 1000)
		progress_line(j->l, "labelled", nu, nu, "\n");
	strbuf__free(&s);
	strbuf__free(&m);
	free(buf);
	j->err = err;
	return NULL;
}

int stacklists__label_start(struct stacklists *sl, struct labeler *l, struct stackset *ustacks,
			    struct stackset *kstacks, struct stackfeed *feed, int progress)
{
	struct label_job *j = &sl->job;
	int err;

	j->l = l;
	j->user = ustacks;
	j->kernel = kstacks;
	j->feed = feed;
	j->progress = progress;
	err = -pthread_create(&j->thread, NULL, label_main, sl);
	j->started = !err;
	return err;
}

int stacklists__label_finish(struct stacklists *sl)
{
	struct label_job *j = &sl->job;
	uint64_t records = 0;

	if (j->started) {
		if (j->feed)
			stackfeed__close(j->feed);
		pthread_join(j->thread, NULL);
		j->started = false;
	}
	/* Every record is in now: the cut stacks' records can be counted. */
	for (uint32_t i = 0; i < j->ncut; i++) {
		struct stack_entry e;

		stackset__get(j->user, j->cut[i], &e);
		records += e.uses;
	}
	labeler__add_cut_records(j->l, records);
	sl->dict.strs = sl->labels.strs;
	sl->dict.lens = sl->labels.lens;
	sl->dict.n = sl->labels.n;
	sl->mdict.strs = sl->modules.strs;
	sl->mdict.lens = sl->modules.lens;
	sl->mdict.n = sl->modules.n;
	return j->err;
}

int stacklists__label(struct stacklists *sl, struct labeler *l, struct stackset *ustacks,
		      struct stackset *kstacks, int progress)
{
	sl->job = (struct label_job){ .l = l, .user = ustacks, .kernel = kstacks,
				      .progress = progress };
	label_main(sl);
	return stacklists__label_finish(sl);
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
