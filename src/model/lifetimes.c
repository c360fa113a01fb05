#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "model/lifetimes.h"

static int cmp_lifetime(const void *x, const void *y)
{
	const struct lifetime *a = x, *b = y;

	/* By start, then pid: equal starts come in one order every time. */
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

struct fork_info {
	uint32_t parent;
	uint64_t ts, file_row;
};

struct forks {
	struct fork_info *f;
	uint32_t n, cap;
	struct hmap by_child;	/* child pid → index in f */
};

/* The fork row r, if it is its child's first in (ts, file row) order. */
static int add_fork(struct forks *fk, const struct model *m, uint64_t r)
{
	uint64_t t = model__ts(m, r);
	struct fork_info *f;
	uint32_t idx;

	if (hmap__get(&fk->by_child, model__a(m, r, NULL), &idx)) {
		f = &fk->f[idx];
		if (f->ts < t || (f->ts == t && f->file_row < model__file_row(m, r)))
			return 0;
	} else {
		if (fk->n == fk->cap) {
			struct fork_info *p = realloc(fk->f, (fk->cap = fk->cap ? fk->cap * 2 : 64) * sizeof(*p));

			if (!p)
				return -ENOMEM;
			fk->f = p;
		}
		if (hmap__put(&fk->by_child, model__a(m, r, NULL), fk->n))
			return -ENOMEM;
		f = &fk->f[fk->n++];
	}
	f->parent = (uint32_t)model__b(m, r, NULL);
	f->ts = t;
	f->file_row = model__file_row(m, r);
	return 0;
}

/* First fork of each child, parent and child both known. */
static int find_forks(struct forks *fk, const struct model *m)
{
	int fork_code = m->code_of[EV_PROCESS_FORK];

	for (uint64_t r = 0; fork_code >= 0 && r < m->n; r++) {
		if ((int)model__type(m, r) != fork_code || (m->flags[r] & (ROW_A | ROW_B)) != (ROW_A | ROW_B))
			continue;
		if (add_fork(fk, m, r))
			return -ENOMEM;
	}
	return 0;
}

/* Pid index p's lifetime into l; 1 with *error set when an exit row has no exit code. */
static int pid_lifetime(const struct model *m, const struct forks *fk, uint32_t p,
			struct lifetime *l, char **error)
{
	int exit_code = m->code_of[EV_PROCESS_EXIT];
	uint64_t lo = m->pid_off[p], hi = m->pid_off[p + 1];
	uint32_t idx;

	l->pid = m->pids[p];
	l->start = model__ts(m, lo);
	l->end = model__ts(m, hi - 1);
	l->name = model__name(m, l->pid);
	if (hmap__get(&fk->by_child, l->pid, &idx)) {
		l->forked = true;
		l->parent = fk->f[idx].parent;
		l->start = fk->f[idx].ts;
	}
	for (uint64_t r = lo; exit_code >= 0 && r < hi; r++) {
		if ((int)model__type(m, r) != exit_code)
			continue;
		/* Every process_exit row must carry exit_code (the 0.1 viewer API fails). */
		if (!(m->flags[r] & ROW_A)) {
			if (asprintf(error, "process_exit row missing required exit_code (pid %u, ts_ns %llu)",
				     l->pid, (unsigned long long)model__ts(m, r)) < 0)
				*error = NULL;
			return *error ? 1 : -ENOMEM;
		}
		if (!l->exited) {	/* rows are in time order: the first exit wins */
			l->exited = true;
			l->exit = (int32_t)model__a(m, r, NULL);
			l->end = model__ts(m, r);
		}
	}
	return 0;
}

int model__lifetimes(const struct model *m, struct lifetime **out, char **error)
{
	struct lifetime *lt = calloc(m->npids + 1, sizeof(*lt));
	struct forks fk = { 0 };
	int err = lt ? find_forks(&fk, m) : -ENOMEM;

	*out = NULL;
	*error = NULL;
	for (uint32_t p = 0; !err && p < m->npids; p++)
		err = pid_lifetime(m, &fk, p, &lt[p], error);
	if (!err) {
		qsort(lt, m->npids, sizeof(*lt), cmp_lifetime);
		*out = lt;
		lt = NULL;
	}
	hmap__free(&fk.by_child);
	free(fk.f);
	free(lt);
	return err < 0 ? err : 0;
}

int model__cpu_times(const struct model *m, struct cpu_times *c)
{
	int code = m->code_of[EV_CPU_SAMPLE];
	uint64_t period = m->sample_freq_hz ? 1000000000ull / m->sample_freq_hz : 0;
	struct hmap proc = { 0 };
	int err = 0;

	memset(c, 0, sizeof(*c));
	c->known = period > 0;
	c->thread_ns = calloc(m->npids + 1, sizeof(*c->thread_ns));
	c->process_ns = calloc(m->npids + 1, sizeof(*c->process_ns));
	c->threads = calloc(m->npids + 1, sizeof(*c->threads));
	if (!c->thread_ns || !c->process_ns || !c->threads) {
		cpu_times__free(c);
		return -ENOMEM;
	}
	for (uint32_t p = 0; p < m->npids && code >= 0; p++) {
		uint64_t lo, hi, w = 0;

		model__type_window(m, (unsigned int)code, p, 0, UINT64_MAX, &lo, &hi);
		for (uint64_t k = lo; k < hi; k++)
			w += m->has_stack_weight && m->w16 ? model__weight(m, model__by_type(m, k)) : 1;
		c->thread_ns[p] = w * period;
	}
	for (uint32_t p = 0; p < m->npids && !err; p++)
		if (model__tgid_of(m, m->pids[p]) == m->pids[p])
			err = hmap__put(&proc, m->pids[p], p);
	for (uint32_t p = 0; p < m->npids && !err; p++) {
		uint32_t at;

		if (!hmap__get(&proc, model__tgid_of(m, m->pids[p]), &at))
			continue;
		c->process_ns[at] += c->thread_ns[p];
		c->threads[at]++;
	}
	hmap__free(&proc);
	if (err)
		cpu_times__free(c);
	return err;
}

void cpu_times__free(struct cpu_times *c)
{
	free(c->thread_ns);
	free(c->process_ns);
	free(c->threads);
	memset(c, 0, sizeof(*c));
}
