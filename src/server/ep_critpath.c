/* The critical path (model/critpath.h) and the wall-clock flame graph as JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/critpath.h"
#include "model/wallflame.h"
#include "server/api.h"

/* Segments in an answer unless the client says otherwise. */
#define CP_DEFAULT_MAX 5000

/* Optional start_ns/end_ns (default: the thread's life). */
static int opt_window(struct request *rq, uint64_t l0, uint64_t l1, uint64_t *start, uint64_t *end)
{
	bool hs = false, he = false;

	if (params__u64(&rq->p, "start_ns", false, UINT64_MAX, start, &hs) ||
	    params__u64(&rq->p, "end_ns", false, UINT64_MAX, end, &he))
		return api__bad_param(rq);
	if (!hs)
		*start = l0;
	if (!he)
		*end = l1;
	if (*end < *start) {
		rq->error_param = "end_ns";
		return api__fail(rq, 400, "end_ns must not be less than start_ns");
	}
	return 0;
}

/* Segments narrower than the window / max join the one before (tiling is kept). */
static void bound(struct cpsegs *c, uint64_t start, uint64_t end, uint64_t max)
{
	uint64_t minw = (end - start) / max;
	size_t k = 0;

	if (c->n <= max)
		return;
	for (size_t i = 0; i < c->n; i++) {
		if (k && c->v[i].end - c->v[i].start < minw) {
			c->v[k - 1].end = c->v[i].end;
			continue;
		}
		c->v[k++] = c->v[i];
	}
	c->n = k;
}

static void write_seg(struct request *rq, const struct sched *s, const struct cpseg *g)
{
	const struct model *m = &rq->st->m;
	const char *last = NULL;
	uint32_t tgid = g->tid, id = critpath__stack(m, g);

	model__name_info(m, g->tid, &last, &tgid);
	json__obj_begin(&rq->out);
	json__key(&rq->out, "tid");
	json__u64(&rq->out, g->tid);
	json__key(&rq->out, "pid");
	json__u64(&rq->out, tgid);
	json__key(&rq->out, "thread_name");
	if (last)
		json__str(&rq->out, last);
	else
		json__null(&rq->out);
	json__key(&rq->out, "state");
	json__str(&rq->out, thread_state_names[g->state]);
	json__key(&rq->out, "start_ns");
	json__u64(&rq->out, g->start);
	json__key(&rq->out, "end_ns");
	json__u64(&rq->out, g->end);
	json__key(&rq->out, "stack");
	if (id == STACK_NULL || id >= m->nstacks)
		json__null(&rq->out);
	else
		json__raw(&rq->out, m->stack_json[id], m->stack_json_len[id]);
	api__waker(rq, s, g->state == TS_SLEEPING || g->state == TS_DISK ? g->off : NULL);
	json__obj_end(&rq->out);
}

int ep_critical_path(struct request *rq)
{
	const struct model *m = &rq->st->m;
	struct cpsegs c = { 0 };
	const struct sched *s;
	uint64_t tid, start, end, max, l0, l1;
	bool has_tid = false;
	int status;

	if (params__u64(&rq->p, "tid", false, UINT32_MAX, &tid, &has_tid) ||
	    params__count(&rq->p, "max_segments", false, 1000000, CP_DEFAULT_MAX, &max))
		return api__bad_param(rq);
	if (!(s = api__sched(rq)))
		return 500;
	if (!has_tid)
		tid = critpath__default_tid(m, s->root_pid);
	if (!states__life(m, s, (uint32_t)tid, &l0, &l1)) {
		rq->error_param = "tid";
		return api__fail(rq, 400, "tid %llu is not in the trace", (unsigned long long)tid);
	}
	if ((status = opt_window(rq, l0, l1, &start, &end)))
		return status;
	if (critpath__build(m, s, (uint32_t)tid, start, end, &c)) {
		cpsegs__free(&c);
		return api__fail(rq, 500, "out of memory");
	}
	bound(&c, start, end, max);
	json__obj_begin(&rq->out);
	json__key(&rq->out, "tid");
	json__u64(&rq->out, tid);
	json__key(&rq->out, "start_ns");
	json__u64(&rq->out, start > l0 ? start : l0);
	json__key(&rq->out, "end_ns");
	json__u64(&rq->out, end < l1 ? end : l1);
	json__key(&rq->out, "segments");
	json__arr_begin(&rq->out);
	for (size_t i = 0; i < c.n; i++)
		write_seg(rq, s, &c.v[i]);
	json__arr_end(&rq->out);
	api__sched_note(rq, s, c.n ? NULL : "no segments: the thread did not live in the window");
	json__obj_end(&rq->out);
	cpsegs__free(&c);
	return 200;
}

/* Threads of tid= (one) or tgid= (every thread of that process). */
static int wall_threads(struct request *rq, uint32_t **tids, size_t *n, uint64_t *who, bool *by_tgid)
{
	const struct model *m = &rq->st->m;
	uint64_t tid = 0, tgid = 0;
	bool ht = false, hg = false;

	if (params__u64(&rq->p, "tid", false, UINT32_MAX, &tid, &ht) ||
	    params__u64(&rq->p, "tgid", false, UINT32_MAX, &tgid, &hg))
		return api__bad_param(rq);
	if (ht == hg) {
		rq->error_param = "tid";
		return api__fail(rq, 400, "give one of tid and tgid");
	}
	if (!(*tids = malloc((m->npids + 1) * sizeof(**tids))))
		return api__fail(rq, 500, "out of memory");
	*n = 0;
	for (uint32_t i = 0; i < m->npids; i++) {
		const char *last;
		uint32_t g = m->pids[i];

		if (ht ? m->pids[i] == tid : model__name_info(m, m->pids[i], &last, &g) && g == tgid)
			(*tids)[(*n)++] = m->pids[i];
	}
	*who = ht ? tid : tgid;
	*by_tgid = hg;
	if (!*n) {
		rq->error_param = ht ? "tid" : "tgid";
		return api__fail(rq, 400, "%s %llu is not in the trace", ht ? "tid" : "tgid",
				 (unsigned long long)*who);
	}
	return 0;
}

/* A stack's frames, with a blocked state's "[state]" as its leaf. */
static void wall_frames(struct request *rq, const struct wall_stack *w)
{
	const struct model *m = &rq->st->m;
	const char *js = w->stack < m->nstacks && w->stack != STACK_NULL ? m->stack_json[w->stack] : "[]";
	size_t len = w->stack < m->nstacks && w->stack != STACK_NULL ? m->stack_json_len[w->stack] : 2;
	char leaf[32], *buf;
	int k;

	if (w->state == TS_RUNNING) {
		json__raw(&rq->out, js, len);
		return;
	}
	k = snprintf(leaf, sizeof(leaf), "%s\"[%s]\"]", len > 2 ? "," : "", thread_state_names[w->state]);
	if (!(buf = malloc(len + (size_t)k))) {
		json__raw(&rq->out, js, len);
		return;
	}
	memcpy(buf, js, len - 1);
	memcpy(buf + len - 1, leaf, (size_t)k);
	json__raw(&rq->out, buf, len - 1 + (size_t)k);
	free(buf);
}

int ep_wall_flamegraph(struct request *rq)
{
	const struct model *m = &rq->st->m;
	const struct sched *s;
	struct wall w = { 0 };
	uint32_t *tids = NULL;
	uint64_t who = 0, start, end;
	bool by_tgid = false;
	size_t n;
	int status;

	if ((status = wall_threads(rq, &tids, &n, &who, &by_tgid)))
		goto cleanup;
	if (params__range(&rq->p, &start, &end)) {
		status = api__bad_param(rq);
		goto cleanup;
	}
	if (!(s = api__sched(rq))) {
		status = 500;
		goto cleanup;
	}
	if (wallflame__build(m, s, tids, n, start, end, &w)) {
		status = api__fail(rq, 500, "out of memory");
		goto cleanup;
	}
	json__obj_begin(&rq->out);
	json__key(&rq->out, by_tgid ? "tgid" : "tid");
	json__u64(&rq->out, who);
	json__key(&rq->out, "weight_unit");
	json__str(&rq->out, "ns");
	json__key(&rq->out, "total_ns");
	json__u64(&rq->out, w.on_cpu_ns + w.off_cpu_ns);
	json__key(&rq->out, "on_cpu_ns");
	json__u64(&rq->out, w.on_cpu_ns);
	json__key(&rq->out, "off_cpu_ns");
	json__u64(&rq->out, w.off_cpu_ns);
	json__key(&rq->out, "stacks");
	json__arr_begin(&rq->out);
	for (size_t i = 0; i < w.n; i++) {
		json__obj_begin(&rq->out);
		json__key(&rq->out, "frames");
		wall_frames(rq, &w.v[i]);
		json__key(&rq->out, "weight");
		json__u64(&rq->out, w.v[i].ns);
		json__obj_end(&rq->out);
	}
	json__arr_end(&rq->out);
	api__sched_note(rq, s, w.n ? NULL : "nothing in the window");
	json__obj_end(&rq->out);
	status = 200;
cleanup:
	wall__free(&w);
	free(tids);
	return status;
}
