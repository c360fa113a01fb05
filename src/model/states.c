/* Thread states from switches and off-CPU intervals (see model/states.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/states.h"

const char *const thread_state_names[TS__COUNT] = {
	[TS_RUNNING] = "running", [TS_RUNNABLE] = "runnable", [TS_SLEEPING] = "sleeping",
	[TS_DISK] = "disk", [TS_UNKNOWN] = "unknown",
};

static int push(struct tspans *sp, const struct tspan *t)
{
	if (sp->n == sp->cap) {
		size_t cap = sp->cap ? sp->cap * 2 : 256;
		struct tspan *v = realloc(sp->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		sp->v = v;
		sp->cap = cap;
	}
	sp->v[sp->n++] = *t;
	return 0;
}

void tspans__free(struct tspans *sp)
{
	free(sp->v);
	memset(sp, 0, sizeof(*sp));
}

bool states__life(const struct model *m, const struct sched *s, uint32_t tid, uint64_t *start,
		  uint64_t *end)
{
	int64_t p = m ? model__pid_index(m, tid) : -1, ti = sched__tid_index(s, tid);
	bool seen = false;

	*start = UINT64_MAX;
	*end = 0;
	if (p >= 0 && m->pid_off[p] < m->pid_off[p + 1]) {
		*start = model__ts(m, m->pid_off[p]);
		*end = model__ts(m, m->pid_off[p + 1] - 1);
		seen = true;
	}
	if (ti >= 0) {
		uint64_t a = s->ev_off[ti], b = s->ev_off[ti + 1];

		if (a < b) {
			*start = s->ev[a].ts < *start ? s->ev[a].ts : *start;
			*end = s->ev[b - 1].ts > *end ? s->ev[b - 1].ts : *end;
			seen = true;
		}
		if (s->off_off[ti] < s->off_off[ti + 1]) {
			const struct sched_off *o = &s->off[s->off_off[ti + 1] - 1];

			*end = o->ts + o->lat > *end ? o->ts + o->lat : *end;
			seen = true;
		}
	}
	return seen;
}

/* Where the walk is: the state since `since`, and for a block, its interval. */
struct walk {
	enum thread_state state;
	uint64_t since, block_ts;
	const struct sched_off *off;
	bool dead;
};

static enum thread_state after_out(int32_t st)
{
	if (!sched__blocks(st))
		return TS_RUNNABLE;
	return sched__is_disk(st) ? TS_DISK : TS_SLEEPING;
}

/* [a, b) of the walk's state, clipped to [lo, hi]; a blocked interval whose runnable
 * part is known splits at the wakeup. */
static int emit(struct tspans *out, const struct walk *w, uint64_t a, uint64_t b, uint64_t lo,
		uint64_t hi)
{
	struct tspan t = { .state = (uint8_t)w->state, .block_ts = w->block_ts, .off = w->off };
	uint64_t wake = b;
	int err = 0;

	if ((w->state == TS_SLEEPING || w->state == TS_DISK) && w->off && w->off->runnable >= 0 &&
	    (uint64_t)w->off->runnable <= b - a)
		wake = b - (uint64_t)w->off->runnable;
	a = a < lo ? lo : a;
	b = b > hi ? hi : b;
	if (a >= b)
		return 0;
	t.start = a;
	t.end = wake < b ? (wake > a ? wake : a) : b;
	if (t.end > t.start)
		err = push(out, &t);
	if (!err && t.end < b) {
		t.start = t.end;
		t.end = b;
		t.state = TS_RUNNABLE;
		err = push(out, &t);
	}
	return err;
}

static void step(const struct sched *s, int64_t ti, const struct sched_ev *e, struct walk *w)
{
	w->since = e->ts;
	w->off = NULL;
	w->block_ts = 0;
	if (e->state == SCHED_IN) {
		w->state = TS_RUNNING;
		return;
	}
	if (w->state != TS_RUNNING && w->state != TS_UNKNOWN) {
		w->state = TS_UNKNOWN;	/* out twice: a switch in was lost */
		return;
	}
	w->state = after_out(e->state);
	w->block_ts = e->ts;
	w->dead = sched__is_dead(e->state);
	if (w->state != TS_RUNNABLE)
		w->off = sched__off_at(s, ti, e->ts);
}

int states__spans(const struct model *m, const struct sched *s, uint32_t tid, uint64_t start,
		  uint64_t end, struct tspans *out)
{
	return states__spans_hint(m, s, tid, start, end, out, NULL);
}

int states__spans_hint(const struct model *m, const struct sched *s, uint32_t tid, uint64_t start,
		       uint64_t end, struct tspans *out, uint64_t *hint)
{
	uint64_t l0, l1;

	if (!states__life(m, s, tid, &l0, &l1))
		return 0;
	return states__spans_life(s, tid, l0, l1, start, end, out, hint);
}

/* The first switch in ev[lo, hi) after t.  From *hint (a previous answer for this thread,
 * or past hi: none) when the walk goes forward in time: a gallop from there touches a few
 * entries where a binary search over the thread's switches misses the cache at each step. */
static uint64_t first_after(const struct sched *s, uint64_t lo, uint64_t hi, uint64_t t,
			    uint64_t *hint)
{
	uint64_t a = lo, b = hi;

	if (hint && *hint >= lo && *hint <= hi) {
		uint64_t h = *hint, step = 1;

		if (h > lo && s->ev[h - 1].ts > t) {
			b = h;
		} else {
			a = h;
			b = h;
			while (b < hi && s->ev[b].ts <= t) {
				a = b + 1;
				b = a + step < hi ? a + step : hi;
				step *= 2;
			}
		}
	}
	while (a < b) {
		uint64_t mid = a + (b - a) / 2;

		if (s->ev[mid].ts <= t)
			a = mid + 1;
		else
			b = mid;
	}
	if (hint)
		*hint = a;
	return a;
}

int states__spans_life(const struct sched *s, uint32_t tid, uint64_t l0, uint64_t l1,
		       uint64_t start, uint64_t end, struct tspans *out, uint64_t *hint)
{
	int64_t ti = sched__tid_index(s, tid);
	uint64_t i, e1;
	struct walk w = { .state = TS_UNKNOWN };
	int err = 0;

	start = start > l0 ? start : l0;
	end = end < l1 ? end : l1;
	if (start >= end)
		return 0;
	if (ti < 0)	/* rows but no switch: nothing known of its states */
		return emit(out, &w, start, end, start, end);
	i = s->ev_off[ti];
	e1 = s->ev_off[ti + 1];
	w.since = l0;
	if (i < e1 && s->ev[i].state != SCHED_IN)
		w.state = TS_RUNNING;	/* was on a CPU when the trace first saw it */
	/* Start at the last switch before the window. */
	{
		uint64_t lo = first_after(s, i, e1, start, hint);

		if (lo > i) {
			w.state = s->ev[lo - 1].state == SCHED_IN ? TS_RUNNING : TS_UNKNOWN;
			step(s, ti, &s->ev[lo - 1], &w);
		}
		i = lo;
	}
	for (; !err && i < e1 && s->ev[i].ts < end && !w.dead; i++) {
		err = emit(out, &w, w.since, s->ev[i].ts, start, end);
		step(s, ti, &s->ev[i], &w);
	}
	if (!err && !w.dead)
		err = emit(out, &w, w.since, end, start, end);
	return err;
}

/* Narrow spans being merged: the first of them, widened, and the time in each state. */
struct merging {
	struct tspan t;
	uint64_t ns[TS__COUNT];
};

static int flush(struct tspans *dst, struct merging *acc)
{
	int best = 0, err;

	if (!acc->t.merged)
		return 0;
	if (acc->t.merged == 1) {
		acc->t.merged = 0;
	} else {
		for (int k = 1; k < TS__COUNT; k++)
			if (acc->ns[k] > acc->ns[best])
				best = k;
		acc->t.state = (uint8_t)best;
		acc->t.off = NULL;
		acc->t.block_ts = 0;
	}
	err = push(dst, &acc->t);
	memset(acc, 0, sizeof(*acc));
	return err;
}

int states__bound(struct tspans *sp, uint64_t start, uint64_t end, uint64_t max)
{
	uint64_t minw = max ? (end - start) / max : 0;
	struct tspans out = { 0 };
	struct merging acc = { 0 };
	int err = 0;

	if (!minw || sp->n <= max)
		return 0;
	for (size_t i = 0; !err && i < sp->n; i++) {
		struct tspan *t = &sp->v[i];
		uint64_t wd = t->end - t->start;

		if (wd >= minw) {
			if (!(err = flush(&out, &acc)))
				err = push(&out, t);
			continue;
		}
		if (!acc.t.merged)
			acc.t = *t;
		acc.t.end = t->end;
		acc.ns[t->state] += wd;
		acc.t.merged++;
		if (acc.t.end - acc.t.start >= minw)
			err = flush(&out, &acc);
	}
	if (!err)
		err = flush(&out, &acc);
	if (err) {
		tspans__free(&out);
		return err;
	}
	tspans__free(sp);
	*sp = out;
	return 0;
}

static bool suffix(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && !memcmp(s + n - k, suf, k);
}

int64_t states__syscall_at(const struct model *m, uint32_t tid, uint64_t ts)
{
	int64_t p = model__pid_index(m, tid);
	uint64_t lo, hi;

	if (p < 0)
		return -1;
	lo = m->pid_off[p];
	hi = model__lower_bound(m, lo, m->pid_off[p + 1], ts + 1);
	/* A block is within a few rows (a switch, a sample) of its syscall's enter. */
	for (uint64_t r = hi, k = 0; r > lo && k < 512; r--, k++) {
		const char *n = m->type_names[model__type(m, r - 1)];
		size_t len = strlen(n);

		if (strncmp(n, "syscall_", 8))
			continue;
		return suffix(n, len, "_enter") ? (int64_t)(r - 1) : -1;
	}
	return -1;
}

const char *states__syscall_name(const struct model *m, uint64_t rn, size_t *len)
{
	const char *n = m->type_names[model__type(m, rn)];

	*len = strlen(n) - 8 - 6;
	return n + 8;
}

int64_t states__off_row(const struct model *m, uint32_t tid, uint64_t ts)
{
	int64_t p = model__pid_index(m, tid);
	int c = m->code_of[EV_OFF_CPU];
	uint64_t lo, hi;

	if (p < 0 || c < 0)
		return -1;
	model__type_window(m, (unsigned int)c, (uint32_t)p, ts, ts, &lo, &hi);
	return lo < hi ? (int64_t)model__by_type(m, lo) : -1;
}
