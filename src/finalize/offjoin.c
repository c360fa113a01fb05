#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/hmap.h"
#include "finalize/offjoin.h"

/* What thread tid's pending block has gathered; a time that does not match the off_cpu
 * row's is a stale one (a sampled-out switch, an interval too short to be recorded). */
struct pending {
	uint64_t block_ts, wake_ts;
	struct offjoin_stacks own, waker;
};

struct offjoin {
	struct hmap tids;	/* tid → index in p */
	struct pending *p;
	uint32_t n, cap;
};

struct offjoin *offjoin__new(void)
{
	return calloc(1, sizeof(struct offjoin));
}

void offjoin__free(struct offjoin *j)
{
	if (!j)
		return;
	hmap__free(&j->tids);
	free(j->p);
	free(j);
}

static struct pending *pending_of(struct offjoin *j, uint32_t tid)
{
	uint32_t i;

	if (hmap__get(&j->tids, tid, &i))
		return &j->p[i];
	if (j->n == j->cap) {
		uint32_t cap = j->cap ? j->cap * 2 : 256;
		struct pending *p = realloc(j->p, cap * sizeof(*p));

		if (!p)
			return NULL;
		j->p = p;
		j->cap = cap;
	}
	if (hmap__put(&j->tids, tid, j->n))
		return NULL;
	j->p[j->n] = (struct pending){ UINT64_MAX, UINT64_MAX, { -1, -1 }, { -1, -1 } };
	return &j->p[j->n++];
}

/* Remember, for tid, a stack seen at ts: its own blocking switch's or its waker's. */
static int note(struct offjoin *j, uint32_t tid, uint64_t ts, struct offjoin_stacks s, bool waker)
{
	struct pending *p = pending_of(j, tid);

	if (!p)
		return -ENOMEM;
	*(waker ? &p->wake_ts : &p->block_ts) = ts;
	*(waker ? &p->waker : &p->own) = s;
	return 0;
}

int offjoin__block(struct offjoin *j, uint32_t tid, uint64_t ts, struct offjoin_stacks s)
{
	return note(j, tid, ts, s, false);
}

int offjoin__wake(struct offjoin *j, uint32_t wakee, uint64_t off_ts, struct offjoin_stacks s)
{
	return note(j, wakee, off_ts, s, true);
}

void offjoin__offcpu(const struct offjoin *j, uint32_t tid, uint64_t ts, struct offjoin_stacks *own,
		     struct offjoin_stacks *waker)
{
	const struct pending *p;
	uint32_t i;

	if (!hmap__get(&j->tids, tid, &i))
		return;
	p = &j->p[i];
	if (p->block_ts == ts) {
		if (own->u < 0)
			own->u = p->own.u;
		if (own->k < 0)
			own->k = p->own.k;
	}
	if (p->wake_ts == ts)
		*waker = p->waker;
}
