/* Which pids a window takes: one thread, one process's threads, or all. */
#include <errno.h>
#include <stdlib.h>

#include "model/model.h"

uint32_t model__tgid_of(const struct model *m, uint32_t pid)
{
	const char *last;
	uint32_t tgid;

	return model__name_info(m, pid, &last, &tgid) && tgid ? tgid : pid;
}

bool window__takes(const struct model *m, const struct window *w, uint32_t pid)
{
	if (w->has_pid)
		return pid == w->pid;
	return !w->has_tgid || model__tgid_of(m, pid) == w->tgid;
}

bool window__takes_index(const struct model *m, const struct window *w, uint32_t p)
{
	return !w->has_tgid || model__tgid_of(m, m->pids[p]) == w->tgid;
}

void window__pids(const struct model *m, const struct window *w, uint32_t *p0, uint32_t *p1)
{
	int64_t p;

	*p0 = 0;
	*p1 = m->npids;
	if (!w->has_pid)
		return;
	p = model__pid_index(m, w->pid);
	*p0 = p < 0 ? 0 : (uint32_t)p;
	*p1 = p < 0 ? 0 : *p0 + 1;
}

struct tsrow {
	uint64_t ts;
	uint64_t rn;
};

static int tsrow_cmp(const void *x, const void *y)
{
	const struct tsrow *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->rn < b->rn ? -1 : a->rn > b->rn;
}

int model__window_rows(const struct model *m, const struct window *w, uint64_t **rows, uint64_t *n)
{
	uint64_t total = 0, k = 0, lo, hi;
	struct tsrow *t;
	uint32_t p0, p1;

	*rows = NULL;
	*n = 0;
	window__pids(m, w, &p0, &p1);
	for (uint32_t p = p0; p < p1; p++) {
		if (!window__takes_index(m, w, p))
			continue;
		model__pid_window(m, p, w->start, w->end, &lo, &hi);
		total += hi - lo;
	}
	t = malloc((total + 1) * sizeof(*t));
	*rows = malloc((total + 1) * sizeof(**rows));
	if (!t || !*rows) {
		free(t);
		free(*rows);
		*rows = NULL;
		return -ENOMEM;
	}
	for (uint32_t p = p0; p < p1; p++) {
		if (!window__takes_index(m, w, p))
			continue;
		model__pid_window(m, p, w->start, w->end, &lo, &hi);
		for (uint64_t r = lo; r < hi; r++)
			t[k++] = (struct tsrow){ model__ts(m, r), r };
	}
	/* Rows of one pid are already in (ts, row) order: a sort only across threads. */
	if (p1 - p0 > 1)
		qsort(t, total, sizeof(*t), tsrow_cmp);
	for (uint64_t i = 0; i < total; i++)
		(*rows)[i] = t[i].rn;
	free(t);
	*n = total;
	return 0;
}
