/* Thread states (model/states.h) as JSON: /api/thread_states, and the scheduling index
 * the state, critical-path and wall-clock endpoints share, read on first use. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/states.h"
#include "server/api.h"
#include "server/payload.h"

/* Spans in an answer when the client does not bound it. */
#define STATES_DEFAULT_MAX 2000

const struct sched *api__sched(struct request *rq)
{
	struct viewer_state *st = rq->st;
	struct conn_ctx *c;
	int r;

	pthread_mutex_lock(&st->sched_lock);
	if (!st->sched_read) {
		c = api__conn(rq);
		st->sched_read = c ? sched__load(c->con, &st->tf, &st->sched) : -EIO;
		if (!st->sched_read)
			st->sched_read = 1;
	}
	r = st->sched_read;
	pthread_mutex_unlock(&st->sched_lock);
	if (r < 0) {
		api__fail(rq, 500, "the trace's scheduling rows could not be read");
		return NULL;
	}
	return &st->sched;
}

void api__sched_note(struct request *rq, const struct sched *s, const char *extra)
{
	char note[512] = "";
	size_t n = 0;

	if (!s->has_switches)
		n += (size_t)snprintf(note + n, sizeof(note) - n, "%sthe trace has no sched_switch rows: "
				      "thread states are unknown", n ? "; " : "");
	else if (!s->has_runnable)
		n += (size_t)snprintf(note + n, sizeof(note) - n, "%srunnable time after a wakeup is "
				      "unknown (the trace has no runnable_ns column): blocked spans "
				      "include it", n ? "; " : "");
	if (s->no_stacks && n < sizeof(note))
		n += (size_t)snprintf(note + n, sizeof(note) - n, "%srecorded with --stacks=none: "
				      "no stacks", n ? "; " : "");
	if (extra && n < sizeof(note))
		snprintf(note + n, sizeof(note) - n, "%s%s", n ? "; " : "", extra);
	json__key(&rq->out, "note");
	if (note[0])
		json__str(&rq->out, note);
	else
		json__null(&rq->out);
}

/* "waker_tid" .. "waker_stack" of a blocked interval (null without a waker). */
void api__waker(struct request *rq, const struct sched *s, const struct sched_off *o)
{
	const struct model *m = &rq->st->m;
	const char *name = o && o->waker_pid ? model__name(m, o->waker_pid) : NULL;

	if (!name)	/* not traced: its comm at the wakeup */
		name = sched__waker_name(s, o);

	json__key(&rq->out, "waker_tid");
	if (o && o->waker_pid)
		json__u64(&rq->out, o->waker_pid);
	else
		json__null(&rq->out);
	json__key(&rq->out, "waker_pid");
	if (o && o->waker_pid)
		json__u64(&rq->out, o->waker_tgid);
	else
		json__null(&rq->out);
	json__key(&rq->out, "waker_name");
	if (name)
		json__str(&rq->out, name);
	else
		json__null(&rq->out);
	json__key(&rq->out, "waker_stack");
	if (o && o->wstack)
		json__raw(&rq->out, s->wstack_json[o->wstack], s->wstack_len[o->wstack]);
	else
		json__null(&rq->out);
}

static void write_syscall(struct request *rq, struct payload *pl, int64_t rn)
{
	const struct model *m = &rq->st->m;
	size_t len;
	const char *n;

	json__key(&rq->out, "syscall");
	if (rn < 0) {
		json__null(&rq->out);
		return;
	}
	n = states__syscall_name(m, (uint64_t)rn, &len);
	json__obj_begin(&rq->out);
	json__key(&rq->out, "name");
	json__strn(&rq->out, n, len);
	/* fd, filename, count ... as the enter row has them. */
	payload__write(pl, &rq->out, model__file_row(m, (uint64_t)rn));
	json__obj_end(&rq->out);
}

static void write_span(struct request *rq, const struct sched *s, const struct tspan *t,
		       struct payload *pl, int64_t sys, uint32_t tid)
{
	const struct model *m = &rq->st->m;
	bool blocked = t->state == TS_SLEEPING || t->state == TS_DISK;
	int64_t off = blocked ? states__off_row(m, tid, t->block_ts) : -1;

	json__obj_begin(&rq->out);
	json__key(&rq->out, "start_ns");
	json__u64(&rq->out, t->start);
	json__key(&rq->out, "end_ns");
	json__u64(&rq->out, t->end);
	json__key(&rq->out, "state");
	json__str(&rq->out, thread_state_names[t->state]);
	write_syscall(rq, pl, sys);
	api__waker(rq, s, t->merged ? NULL : t->off);
	json__key(&rq->out, "stack");
	if (off >= 0)
		api__stack(rq, (uint64_t)off);
	else
		json__null(&rq->out);
	if (t->merged) {
		json__key(&rq->out, "merged");
		json__u64(&rq->out, t->merged);
	}
	json__obj_end(&rq->out);
}

/* The syscall each blocked span was in (model row or -1), and their payload. */
static int find_syscalls(struct request *rq, const struct tspans *sp, uint32_t tid, int64_t *sys,
			 struct payload **pl)
{
	const struct model *m = &rq->st->m;
	uint32_t *rows = malloc(sp->n * sizeof(*rows) + 1), n = 0;
	int status;

	if (!rows)
		return api__fail(rq, 500, "out of memory");
	for (size_t i = 0; i < sp->n; i++) {
		const struct tspan *t = &sp->v[i];

		sys[i] = !t->merged && t->block_ts && t->state != TS_RUNNING ?
			 states__syscall_at(m, tid, t->block_ts) : -1;
		if (sys[i] >= 0)
			rows[n++] = model__file_row(m, (uint64_t)sys[i]);
	}
	status = payload__fetch(rq, rows, n, pl);
	free(rows);
	if (status)	/* the spans go out without fd and file names */
		*pl = NULL, rq->error[0] = 0;
	return 0;
}

int ep_thread_states(struct request *rq)
{
	const struct model *m = &rq->st->m;
	const struct sched *s;
	uint64_t tid, start, end, max, l0, l1;
	struct tspans sp = { 0 };
	struct payload *pl = NULL;
	int64_t *sys = NULL;
	int status;

	if (params__u64(&rq->p, "tid", true, UINT32_MAX, &tid, NULL) ||
	    params__range(&rq->p, &start, &end) ||
	    params__count(&rq->p, "max_spans", false, 100000, STATES_DEFAULT_MAX, &max))
		return api__bad_param(rq);
	if (!(s = api__sched(rq)))
		return 500;
	if (!states__life(m, s, (uint32_t)tid, &l0, &l1)) {
		rq->error_param = "tid";
		return api__fail(rq, 400, "tid %llu is not in the trace", (unsigned long long)tid);
	}
	/* Narrow is relative to the part of the window the thread lived in. */
	l0 = start > l0 ? start : l0;
	l1 = end < l1 ? end : l1;
	if (states__spans(m, s, (uint32_t)tid, start, end, &sp) ||
	    (l0 < l1 && states__bound(&sp, l0, l1, max)) ||
	    !(sys = malloc(sp.n * sizeof(*sys) + 1))) {
		status = api__fail(rq, 500, "out of memory");
		goto cleanup;
	}
	if ((status = find_syscalls(rq, &sp, (uint32_t)tid, sys, &pl)))
		goto cleanup;
	json__obj_begin(&rq->out);
	json__key(&rq->out, "tid");
	json__u64(&rq->out, tid);
	json__key(&rq->out, "spans");
	json__arr_begin(&rq->out);
	for (size_t i = 0; i < sp.n; i++)
		write_span(rq, s, &sp.v[i], pl, sys[i], (uint32_t)tid);
	json__arr_end(&rq->out);
	api__sched_note(rq, s, sp.n ? NULL : "no spans: the thread did not live in the window");
	json__obj_end(&rq->out);
	status = 200;
cleanup:
	payload__free(pl);
	free(sys);
	tspans__free(&sp);
	return status;
}
