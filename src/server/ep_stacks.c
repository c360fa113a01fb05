/* Endpoints that show stacks: event_flamegraph (the model's sampled, folded stacks of one
 * event type, model/flame.h, as SVG and JSON) and event_list (a page of one pid's events,
 * straight from the sorted rows, payload from the file). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/rng.h"
#include "server/api.h"
#include "server/evlist_select.h"
#include "server/flame_svg.h"
#include "server/payload.h"

/* The folded stacks themselves, so that clients draw without parsing the SVG:
 * [{frames: [root..leaf], weight}], weights summing to total_samples. */
static void stacks__json(struct json *out, const struct flame_stack *stacks, size_t n)
{
	json__arr_begin(out);
	for (size_t i = 0; i < n; i++) {
		json__obj_begin(out);
		json__key(out, "frames");
		json__arr_begin(out);
		for (uint32_t k = 0; k < stacks[i].nframes; k++)
			json__strn(out, stacks[i].frames[k], stacks[i].lens[k]);
		json__arr_end(out);
		json__key(out, "weight");
		json__u64(out, stacks[i].count);
		json__obj_end(out);
	}
	json__arr_end(out);
}

int ep_event_flamegraph(struct request *rq)
{
	const struct model *m = &rq->st->m;
	struct flame in = { 0 };
	uint64_t max_stacks;
	const char *type;
	char *svg = NULL, title[256];
	size_t svg_len = 0;
	struct window w;
	int code, status;

	if ((status = api__window(rq, &w)))
		return status;
	if (params__string(&rq->p, "event_type", &type) ||
	    params__count(&rq->p, "max_stacks", true, 1000000, 0, &max_stacks))
		return api__bad_param(rq);
	/* A type the trace does not have is simply empty. */
	code = api__type_code(m, type, strlen(type));
	if (code >= 0) {
		uint64_t seed = rng__mix(rng__mix(w.start) ^ rng__mix(w.end + max_stacks) ^
					   hmap__fnv1a(type, strlen(type), HMAP_FNV_SEED) ^ (w.has_pid ? rng__mix(w.pid + 1) : 0) ^
					   (w.has_tgid ? rng__mix(w.tgid + 1) ^ 0x7467 : 0));

		if (model__flame(m, (unsigned int)code, &w, seed, max_stacks, &in)) {
			status = api__fail(rq, 500, "out of memory");
			goto cleanup;
		}
		snprintf(title, sizeof(title), "probex \xc2\xb7 %s", type);
		if (in.total && !(svg = flame__svg(title, in.blocked ? "ns off-CPU" : "samples", in.stacks,
						    in.n, &svg_len))) {
			status = api__fail(rq, 500, "out of memory");
			goto cleanup;
		}
	}
	status = 200;
	json__obj_begin(&rq->out);
	json__key(&rq->out, "event_type");
	json__str(&rq->out, type);
	json__key(&rq->out, "total_samples");
	json__u64(&rq->out, in.total);
	json__key(&rq->out, "total_in_range");
	json__u64(&rq->out, in.in_range);
	json__key(&rq->out, "svg");
	if (svg)
		json__strn(&rq->out, svg, svg_len);
	else
		json__null(&rq->out);
	json__key(&rq->out, "stacks");
	stacks__json(&rq->out, in.stacks, in.n);
	/* Additive: what a weight counts (cpu_sample rows are samples, stack_weight each). */
	json__key(&rq->out, "weight_unit");
	json__str(&rq->out, !strcmp(type, "off_cpu") && m->has_latency_ns ? "ns" :
			    !strcmp(type, "cpu_sample") ? "samples" : "events");
	/* Additive: a CPU sample stands for this much CPU time (weight × period_ns). */
	if (!strcmp(type, "cpu_sample") && m->sample_freq_hz) {
		json__key(&rq->out, "period_ns");
		json__u64(&rq->out, 1000000000ull / m->sample_freq_hz);
	}
	json__obj_end(&rq->out);
cleanup:
	free(svg);
	flame__free(&in);
	return status;
}

struct type_filter {
	const struct model *m;
	uint16_t codes[TRACE_MAX_TYPES];
	bool seen[TRACE_MAX_TYPES];
	unsigned int n;
};

static void add_type(void *ctx, const char *item, unsigned int len)
{
	struct type_filter *f = ctx;
	/* Names are matched against the trace's own; anything else (quotes included) only
	 * fails to match. */
	int code = api__type_code(f->m, item, len);

	if (code >= 0 && !f->seen[code]) {
		f->seen[code] = true;
		f->codes[f->n++] = (uint16_t)code;
	}
}

/* One pid's rows are contiguous and time-sorted in the model: the window is two binary
 * searches and a page is a short walk (skipping rows of other types), with no sort. */
int ep_event_list(struct request *rq)
{
	const struct model *m = &rq->st->m;
	struct type_filter f = { .m = m };
	uint64_t limit, offset, total = 0, lo = 0, hi = 0, skipped = 0, shown = 0;
	const char *types = rq->p.get(rq->p.ctx, "event_types");
	const char *order = rq->p.get(rq->p.ctx, "order"), *search = rq->p.get(rq->p.ctx, "search");
	const char *with = rq->p.get(rq->p.ctx, "payload");
	bool filter = types && *types, by_latency = order && !strcmp(order, "latency");
	/* payload=0: the rows alone (a page of scattered rows costs the file reads). */
	bool want_payload = !with || strcmp(with, "0");
	struct payload *pl = NULL;
	uint64_t *page = NULL, *tg = NULL;
	uint32_t *rows = NULL;
	struct window w = { 0 };
	int64_t p;
	int status;

	if (params__range(&rq->p, &w.start, &w.end))
		return api__bad_param(rq);
	if ((status = api__who(rq, "pid", "tgid", true, &w)))
		return status;
	if (params__count(&rq->p, "limit", true, 10000, 0, &limit) ||
	    params__u64(&rq->p, "offset", true, UINT64_MAX, &offset, NULL))
		return api__bad_param(rq);
	if (order && strcmp(order, "ts") && !by_latency) {
		rq->error_param = "order";
		return api__fail(rq, 400, "parameter 'order' must be ts or latency");
	}
	if (filter)
		params__split(types, add_type, &f);
	if (w.has_tgid) {
		/* A process: its threads' rows merged in time order, rows picked through tg. */
		if (model__window_rows(m, &w, &tg, &hi))
			return api__fail(rq, 500, "out of memory");
	} else if ((p = model__pid_index(m, w.pid)) >= 0) {
		model__pid_window(m, (uint32_t)p, w.start, w.end, &lo, &hi);
	}
	/* The page first (rows and their count), then its payload in one fetch. */
	page = malloc((limit < hi - lo ? limit : hi - lo) * sizeof(*page) + 1);
	if (!page) {
		free(tg);
		return api__fail(rq, 500, "out of memory");
	}
	/* Ordered by latency or searched: every matching row is looked at. */
	if ((by_latency || (search && *search)) && (!filter || f.n)) {
		struct evlist_query q = { .types = filter ? f.seen : NULL, .search = search,
					  .by_latency = by_latency };
		uint32_t *paths = NULL;
		int err = search && *search ?
			  evlist__path_rows(rq, w.start, w.end, search, &paths, &q.npath) : 0;

		q.path_rows = paths;
		if (err || evlist__select(m, tg, lo, hi, &q, offset, limit, page, &shown, &total)) {
			free(paths);
			free(page);
			free(tg);
			return api__fail(rq, 500, "out of memory");
		}
		free(paths);
		lo = hi;
	}
	/* Asked-for types the trace lacks match nothing (f.n == 0 with a filter). */
	for (uint64_t i = lo; i < hi && (!filter || f.n); i++) {
		uint64_t r = tg ? tg[i] : i;

		if (filter && !f.seen[model__type(m, r)])
			continue;
		total++;
		if (skipped < offset) {
			skipped++;
			continue;
		}
		if (shown == limit) {
			if (!filter) {	/* the rest all count: no need to walk them */
				total += hi - i - 1;
				break;
			}
			continue;
		}
		page[shown++] = r;
	}
	free(tg);
	if (!(rows = malloc(shown * sizeof(*rows) + 1))) {
		free(page);
		return api__fail(rq, 500, "out of memory");
	}
	for (uint64_t i = 0; i < shown; i++)
		rows[i] = model__file_row(m, page[i]);
	/* A payload the file cannot give (a damaged column the other endpoints never read)
	 * leaves the list usable: the rows go out without it, and the reason with them. */
	if (want_payload && payload__fetch(rq, rows, (uint32_t)shown, &pl))
		pl = NULL;
	json__obj_begin(&rq->out);
	json__key(&rq->out, "events");
	json__arr_begin(&rq->out);
	for (uint64_t i = 0; i < shown; i++) {
		uint64_t r = page[i];

		json__obj_begin(&rq->out);
		json__key(&rq->out, "ts_ns");
		json__u64(&rq->out, model__ts(m, r));
		/* Additive: 0.1 files have no latency_ns, probex's own carry it (else null). */
		json__key(&rq->out, "latency_ns");
		if (m->has_latency_ns && (m->flags[r] & ROW_LAT))
			json__u64(&rq->out, model__latency(m, r));
		else
			json__null(&rq->out);
		json__key(&rq->out, "event_type");
		json__str(&rq->out, m->type_names[model__type(m, r)]);
		json__key(&rq->out, "pid");
		json__u64(&rq->out, w.has_tgid ? model__pid_of(m, r) : w.pid);
		json__key(&rq->out, "stack_trace");
		api__stack(rq, r);
		/* Additive: the row's other non-null columns (fd, count, ret, cpu, ...). */
		payload__write(pl, &rq->out, rows[i]);
		json__obj_end(&rq->out);
	}
	json__arr_end(&rq->out);
	json__key(&rq->out, "total_in_range");
	json__u64(&rq->out, total);
	if (!pl && want_payload) {
		json__key(&rq->out, "payload_error");
		json__str(&rq->out, rq->error);
		rq->error[0] = 0;
	}
	json__obj_end(&rq->out);
	payload__free(pl);
	free(rows);
	free(page);
	return 200;
}

