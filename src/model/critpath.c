/* The critical path through wakers (see model/critpath.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/critpath.h"

/* Chains longer than this end (a cycle of threads waking each other back and forth). */
#define CP_MAX_DEPTH 32
/* Spans walked for one path, after which chains end: bounds a request. */
#define CP_BUDGET 4000000

struct cpwalk {
	const struct model *m;
	const struct sched *s;
	struct cpsegs *out;
	uint64_t budget;
	struct tspans sp[CP_MAX_DEPTH + 1];	/* each depth's spans, reused */
	uint64_t *hint;				/* per thread index of s: see states__spans_hint */
};

static int push(struct cpsegs *c, const struct cpseg *g)
{
	if (g->end <= g->start)
		return 0;
	if (c->n) {
		struct cpseg *l = &c->v[c->n - 1];

		/* The same thread in the same state (the same block) continues. */
		if (l->tid == g->tid && l->state == g->state && l->off == g->off &&
		    l->block_ts == g->block_ts && l->end == g->start) {
			l->end = g->end;
			return 0;
		}
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		struct cpseg *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = *g;
	return 0;
}

void cpsegs__free(struct cpsegs *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static bool follows(const struct cpwalk *w, uint32_t tid, const struct tspan *t, int depth)
{
	const struct sched_off *o = t->off;

	return (t->state == TS_SLEEPING || t->state == TS_DISK) && o && o->waker_pid &&
	       o->waker_pid != tid && depth < CP_MAX_DEPTH && w->budget &&
	       sched__tid_index(w->s, o->waker_pid) >= 0 &&
	       model__name(w->m, o->waker_pid);	/* traced: not only a partner in switches */
}

/* [a, b] of tid; what tid's spans leave uncovered is `fill` (the blocked segment of the
 * thread this one woke). */
static int path(struct cpwalk *w, uint32_t tid, uint64_t a, uint64_t b, const struct cpseg *fill,
		int depth)
{
	struct tspans *sp = &w->sp[depth];
	uint64_t cur = a;
	int err;

	sp->n = 0;
	int64_t ti = sched__tid_index(w->s, tid);

	err = states__spans_hint(w->m, w->s, tid, a, b, sp, ti >= 0 ? &w->hint[ti] : NULL);
	for (size_t i = 0; !err && i < sp->n; i++) {
		const struct tspan *t = &sp->v[i];
		struct cpseg g = { t->start, t->end, tid, t->state, t->block_ts, t->off };

		w->budget -= w->budget ? 1 : 0;
		if (t->start > cur && fill) {
			struct cpseg f = *fill;

			f.start = cur;
			f.end = t->start;
			err = push(w->out, &f);
		}
		if (!err)
			err = follows(w, tid, t, depth) ? path(w, t->off->waker_pid, t->start, t->end, &g, depth + 1)
							: push(w->out, &g);
		cur = t->end;
	}
	if (!err && cur < b && fill) {
		struct cpseg f = *fill;

		f.start = cur;
		f.end = b;
		err = push(w->out, &f);
	}
	return err;
}

int critpath__build(const struct model *m, const struct sched *s, uint32_t tid, uint64_t start,
		    uint64_t end, struct cpsegs *out)
{
	struct cpwalk w = { m, s, out, CP_BUDGET, { { 0 } }, NULL };
	int err;

	if (!(w.hint = malloc((s->ntids + 1) * sizeof(*w.hint))))
		return -ENOMEM;
	memset(w.hint, 0xff, (s->ntids + 1) * sizeof(*w.hint));
	err = path(&w, tid, start, end, NULL, 0);
	for (int d = 0; d <= CP_MAX_DEPTH; d++)
		tspans__free(&w.sp[d]);
	free(w.hint);
	return err;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The most frequent stack of the n samples from by_type[lo]. */
static uint32_t few_mode(const struct model *m, uint64_t lo, uint64_t n)
{
	uint32_t ids[16], best = STACK_NULL, best_n = 0;

	for (uint64_t i = 0; i < n; i++)
		ids[i] = model__stack(m, model__by_type(m, lo + i));
	for (uint64_t i = 0; i < n; i++) {
		uint32_t k = 0;

		for (uint64_t j = 0; j < n; j++)
			k += ids[j] == ids[i];
		if (ids[i] != STACK_NULL && (k > best_n || (k == best_n && ids[i] < best))) {
			best_n = k;
			best = ids[i];
		}
	}
	return best;
}

/* The most frequent stack of tid's CPU samples in [a, b]. */
static uint32_t sample_mode(const struct model *m, uint32_t tid, uint64_t a, uint64_t b)
{
	int c = m->code_of[EV_CPU_SAMPLE];
	int64_t p = model__pid_index(m, tid);
	uint64_t lo, hi, n, best_n = 0, run = 0;
	uint32_t *ids, best = STACK_NULL;

	if (c < 0 || p < 0)
		return STACK_NULL;
	model__type_window(m, (unsigned int)c, (uint32_t)p, a, b, &lo, &hi);
	n = hi - lo;
	if (n <= 16)	/* most segments: counting beats sorting */
		return few_mode(m, lo, n);
	if (!(ids = malloc(n * sizeof(*ids))))
		return STACK_NULL;
	for (uint64_t i = 0; i < n; i++)
		ids[i] = model__stack(m, model__by_type(m, lo + i));
	qsort(ids, n, sizeof(*ids), cmp_u32);
	for (uint64_t i = 0; i < n; i++) {
		run = i && ids[i] == ids[i - 1] ? run + 1 : 1;
		if (run > best_n && ids[i] != STACK_NULL) {
			best_n = run;
			best = ids[i];
		}
	}
	free(ids);
	return best;
}

uint32_t critpath__stack(const struct model *m, const struct cpseg *g)
{
	int64_t rn;

	if (!m->stack)
		return STACK_NULL;
	if (g->state == TS_RUNNING)
		return sample_mode(m, g->tid, g->start, g->end);
	if (g->state != TS_SLEEPING && g->state != TS_DISK)
		return STACK_NULL;
	rn = states__off_row(m, g->tid, g->block_ts);
	return rn >= 0 ? model__stack(m, (uint64_t)rn) : STACK_NULL;
}

uint32_t critpath__default_tid(const struct model *m, uint32_t root_pid)
{
	if (root_pid && model__pid_index(m, root_pid) >= 0)
		return root_pid;
	return m->npids ? m->pids[0] : 0;
}
