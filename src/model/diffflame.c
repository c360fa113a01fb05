#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "model/diffflame.h"

/* A stack of either side, for sorting both together. */
struct ref {
	const struct flame_stack *s;
	bool is_new;
};

static int frames_cmp(const struct flame_stack *a, const struct flame_stack *b)
{
	uint32_t n = a->nframes < b->nframes ? a->nframes : b->nframes;

	for (uint32_t k = 0; k < n; k++) {
		uint32_t la = a->lens[k], lb = b->lens[k];
		int c = memcmp(a->frames[k], b->frames[k], la < lb ? la : lb);

		if (c)
			return c;
		if (la != lb)
			return la < lb ? -1 : 1;
	}
	return a->nframes < b->nframes ? -1 : a->nframes > b->nframes;
}

static int ref_cmp(const void *x, const void *y)
{
	const struct ref *a = x, *b = y;

	return frames_cmp(a->s, b->s);
}

struct side_job {
	const struct diff_side *sd;
	uint64_t seed, max;
	struct flame *f;
	int err;
};

static void *side_flame(void *arg)
{
	struct side_job *j = arg;

	memset(j->f, 0, sizeof(*j->f));
	if (j->sd->code >= 0)
		j->err = model__flame(j->sd->m, (unsigned int)j->sd->code, j->sd->w, j->seed, j->max, j->f);
	return NULL;
}

/* The two sides are independent walks over two models: BASE's on a thread of its own
 * (half the time on two cores), in line when no thread can be had. */
static int both_flames(const struct diff_side *base, const struct diff_side *new, uint64_t seed,
		       uint64_t max, struct diff_flame *out)
{
	struct side_job b = { base, seed, max, &out->base, 0 }, n = { new, seed, max, &out->new, 0 };
	pthread_t t;
	bool threaded = !pthread_create(&t, NULL, side_flame, &b);

	if (!threaded)
		side_flame(&b);
	side_flame(&n);
	if (threaded)
		pthread_join(t, NULL);
	return b.err ? b.err : n.err;
}

/* Sorted by frames, equal stacks are neighbours: one output stack per run of them (a
 * side may hold two stack ids whose labels clean up to the same frames). */
static void merge(const struct ref *refs, size_t n, struct diff_flame *out)
{
	for (size_t i = 0; i < n;) {
		struct diff_stack *d = &out->stacks[out->n++];
		size_t j = i;

		*d = (struct diff_stack){ .frames = refs[i].s->frames, .lens = refs[i].s->lens,
					  .nframes = refs[i].s->nframes };
		for (; j < n && !frames_cmp(refs[i].s, refs[j].s); j++) {
			if (refs[j].is_new)
				d->weight += refs[j].s->count;
			else
				d->base += refs[j].s->count;
		}
		i = j;
	}
}

int model__diff_flame(const struct diff_side *base, const struct diff_side *new, uint64_t seed,
		      uint64_t max, struct diff_flame *out)
{
	struct ref *refs = NULL;
	size_t n = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = both_flames(base, new, seed, max, out)))
		return err;
	refs = malloc((out->base.n + out->new.n + 1) * sizeof(*refs));
	out->stacks = malloc((out->base.n + out->new.n + 1) * sizeof(*out->stacks));
	if (!refs || !out->stacks) {
		free(refs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < out->base.n; i++)
		refs[n++] = (struct ref){ &out->base.stacks[i], false };
	for (size_t i = 0; i < out->new.n; i++)
		refs[n++] = (struct ref){ &out->new.stacks[i], true };
	qsort(refs, n, sizeof(*refs), ref_cmp);
	merge(refs, n, out);
	free(refs);
	return 0;
}

void diff_flame__free(struct diff_flame *d)
{
	free(d->stacks);
	flame__free(&d->base);
	flame__free(&d->new);
	memset(d, 0, sizeof(*d));
}
