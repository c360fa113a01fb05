/* The compare view (`--view NEW --base BASE`): which traces are served (compare) and the
 * differential flame graph of one event type (diff_flamegraph, model/diffflame.h).  The
 * other endpoints answer for the base with trace=base (server.c). */
#include <stdio.h>
#include <string.h>

#include "common/hmap.h"
#include "common/rng.h"
#include "model/diffflame.h"
#include "server/api.h"

int ep_compare(struct request *rq)
{
	const struct viewer_state *base = rq->st->base;

	json__obj_begin(&rq->out);
	json__key(&rq->out, "new_file");
	json__str(&rq->out, rq->st->tf.path);
	json__key(&rq->out, "base_file");
	if (base)
		json__str(&rq->out, base->tf.path);
	else
		json__null(&rq->out);
	json__obj_end(&rq->out);
	return 200;
}

/* BASE's window: base_start_ns/base_end_ns, each defaulting to the whole trace; base_pid. */
static int base_window(struct request *rq, struct window *w)
{
	int status;

	*w = (struct window){ .start = 0, .end = UINT64_MAX };
	if (params__u64(&rq->p, "base_start_ns", false, UINT64_MAX, &w->start, NULL) ||
	    params__u64(&rq->p, "base_end_ns", false, UINT64_MAX, &w->end, NULL))
		return api__bad_param(rq);
	if ((status = api__who(rq, "base_pid", "base_tgid", false, w)))
		return status;
	if (w->end < w->start) {
		rq->error_param = "base_end_ns";
		return api__fail(rq, 400, "parameter 'base_end_ns' must be >= base_start_ns");
	}
	return 0;
}

static const char *weight_unit(const struct diff_flame *d, const char *type)
{
	if (d->new.blocked || d->base.blocked)
		return "ns";
	return !strcmp(type, "cpu_sample") ? "samples" : "events";
}

static void diff__json(struct json *out, const char *type, const struct diff_flame *d)
{
	json__obj_begin(out);
	json__key(out, "event_type");
	json__str(out, type);
	json__key(out, "weight_unit");
	json__str(out, weight_unit(d, type));
	json__key(out, "base_total");
	json__u64(out, d->base.total);
	json__key(out, "total");
	json__u64(out, d->new.total);
	json__key(out, "base_in_range");
	json__u64(out, d->base.in_range);
	json__key(out, "in_range");
	json__u64(out, d->new.in_range);
	json__key(out, "stacks");
	json__arr_begin(out);
	for (size_t i = 0; i < d->n; i++) {
		const struct diff_stack *s = &d->stacks[i];

		json__obj_begin(out);
		json__key(out, "frames");
		json__arr_begin(out);
		for (uint32_t k = 0; k < s->nframes; k++)
			json__strn(out, s->frames[k], s->lens[k]);
		json__arr_end(out);
		json__key(out, "base_weight");
		json__u64(out, s->base);
		json__key(out, "weight");
		json__u64(out, s->weight);
		json__obj_end(out);
	}
	json__arr_end(out);
	json__obj_end(out);
}

int ep_diff_flamegraph(struct request *rq)
{
	struct viewer_state *bst = rq->st->base;
	struct diff_side bs, ns;
	struct diff_flame d;
	struct window w, bw;
	uint64_t max_stacks, seed;
	const char *type;
	int status;

	if ((status = api__window(rq, &w)) || (status = base_window(rq, &bw)))
		return status;
	if (params__string(&rq->p, "event_type", &type) ||
	    params__count(&rq->p, "max_stacks", true, 1000000, 0, &max_stacks))
		return api__bad_param(rq);
	/* The router waited for the base's stacks (api.c) when there is one. */
	if (!bst)
		return api__fail(rq, 400, "no base trace: start the viewer with --view NEW --base BASE");
	/* A process is its threads' tgid, which the base's names give. */
	if (bw.has_tgid && !state__wait(bst, READY_NAMES))
		return api__fail(rq, 503, "%s", bst->stopping ? "the viewer is shutting down" : bst->load_error);
	/* A type a trace does not have is an empty side. */
	bs = (struct diff_side){ &bst->m, api__type_code(&bst->m, type, strlen(type)), &bw };
	ns = (struct diff_side){ &rq->st->m, api__type_code(&rq->st->m, type, strlen(type)), &w };
	seed = rng__mix(rng__mix(w.start) ^ rng__mix(w.end + max_stacks) ^
			hmap__fnv1a(type, strlen(type), HMAP_FNV_SEED));
	if (model__diff_flame(&bs, &ns, seed, max_stacks, &d)) {
		diff_flame__free(&d);
		return api__fail(rq, 500, "out of memory");
	}
	diff__json(&rq->out, type, &d);
	diff_flame__free(&d);
	return 200;
}
