/* Wall-clock flame graph data (see model/wallflame.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/wallflame.h"

struct acc {
	struct wall_stack *v;
	size_t n, cap;
};

static int add(struct acc *a, uint32_t stack, enum thread_state st, uint64_t ns)
{
	if (!ns)
		return 0;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 1024;
		struct wall_stack *v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = (struct wall_stack){ stack, st, ns };
	return 0;
}

static uint64_t overlap(uint64_t a, uint64_t b, uint64_t lo, uint64_t hi)
{
	a = a > lo ? a : lo;
	b = b < hi ? b : hi;
	return b > a ? b - a : 0;
}

static int samples(const struct model *m, uint32_t tid, uint64_t start, uint64_t end,
		   struct acc *a, uint64_t *on)
{
	int c = m->code_of[EV_CPU_SAMPLE];
	int64_t p = model__pid_index(m, tid);
	uint64_t lo, hi, period = m->sample_freq_hz ? 1000000000ull / m->sample_freq_hz : 0;
	int err = 0;

	if (c < 0 || p < 0)
		return 0;
	model__type_window(m, (unsigned int)c, (uint32_t)p, start, end, &lo, &hi);
	for (uint64_t i = lo; !err && i < hi; i++) {
		uint64_t rn = model__by_type(m, i);
		uint64_t ns = period * (m->has_stack_weight && m->w16 ? model__weight(m, rn) : 1);

		*on += ns;
		err = add(a, model__stack(m, rn), TS_RUNNING, ns);
	}
	return err;
}

static int blocks(const struct model *m, const struct sched *s, uint32_t tid, uint64_t start,
		  uint64_t end, struct acc *a, uint64_t *off)
{
	int64_t ti = sched__tid_index(s, tid);
	int err = 0;

	if (ti < 0)
		return 0;
	for (uint64_t i = s->off_off[ti]; !err && i < s->off_off[ti + 1] && s->off[i].ts <= end; i++) {
		const struct sched_off *o = &s->off[i];
		uint64_t e = o->ts + o->lat, wake = e, blk, run;
		int64_t rn;

		if (e <= start)
			continue;
		if (o->runnable >= 0 && (uint64_t)o->runnable <= o->lat)
			wake = e - (uint64_t)o->runnable;
		blk = overlap(o->ts, wake, start, end);
		run = overlap(wake, e, start, end);
		rn = states__off_row(m, tid, o->ts);
		*off += blk + run;
		err = add(a, rn >= 0 ? model__stack(m, (uint64_t)rn) : STACK_NULL,
			  sched__is_disk(o->state) ? TS_DISK : TS_SLEEPING, blk);
		if (!err)
			err = add(a, rn >= 0 ? model__stack(m, (uint64_t)rn) : STACK_NULL, TS_RUNNABLE, run);
	}
	return err;
}

static int cmp(const void *x, const void *y)
{
	const struct wall_stack *a = x, *b = y;

	if (a->stack != b->stack)
		return a->stack < b->stack ? -1 : 1;
	return (a->state > b->state) - (a->state < b->state);
}

int wallflame__build(const struct model *m, const struct sched *s, const uint32_t *tids, size_t n,
		     uint64_t start, uint64_t end, struct wall *out)
{
	struct acc a = { 0 };
	size_t k = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; !err && i < n; i++) {
		err = samples(m, tids[i], start, end, &a, &out->on_cpu_ns);
		if (!err)
			err = blocks(m, s, tids[i], start, end, &a, &out->off_cpu_ns);
	}
	if (err) {
		free(a.v);
		return err;
	}
	qsort(a.v, a.n, sizeof(*a.v), cmp);
	for (size_t i = 0; i < a.n; i++) {
		if (k && !cmp(&a.v[k - 1], &a.v[i]))
			a.v[k - 1].ns += a.v[i].ns;
		else
			a.v[k++] = a.v[i];
	}
	out->v = a.v;
	out->n = k;
	return 0;
}

void wall__free(struct wall *w)
{
	free(w->v);
	memset(w, 0, sizeof(*w));
}
