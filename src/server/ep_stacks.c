/* Endpoints that show stacks: event_flamegraph (a sampled flame graph of one event type,
 * rows taken from the per-type row index) and event_list (a page of one pid's events,
 * straight from the sorted rows, payload from the file).  Labels come from the interned
 * stack table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/rng.h"
#include "common/utf8.h"
#include "server/api.h"
#include "server/flame_svg.h"
#include "server/payload.h"

/* The reference's label clean-up: ';' would split the folded line, newlines the SVG
 * text; then Rust's str::trim (every Unicode White_Space character at either end, e.g.
 * U+00A0, U+3000, not only ASCII); blank labels become "[unknown]". */
static size_t sanitize(const char *in, uint32_t len, char *out)
{
	const unsigned char *u = (const unsigned char *)out;
	size_t a = 0, b = len, k;

	for (uint32_t i = 0; i < len; i++) {
		char c = in[i];

		out[i] = c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c;
	}
	while (a < b && (k = utf8__space_at(u + a, b - a)))
		a += k;
	while (b > a && (k = utf8__space_before(u + a, b - a)))
		b -= k;
	if (a == b) {
		memcpy(out, "[unknown]", 9);
		return 9;
	}
	memmove(out, out + a, b - a);
	return b - a;
}


struct flame_input {
	struct flame_stack *stacks;
	const char **frames;
	uint32_t *lens;
	char *text;
	size_t n;
};

/* One sampled row: its sampling key and row. */
struct pick {
	uint64_t h;
	uint32_t rn;
};

static int pick_cmp(const void *x, const void *y)
{
	const struct pick *a = x, *b = y;

	if (a->h != b->h)
		return a->h < b->h ? -1 : 1;
	return a->rn < b->rn ? -1 : a->rn > b->rn;
}

/* The rows of one type in a window (all pids, or w's) that have labels, pid by pid. */
struct flame_rows {
	const struct model *m;
	const struct window *w;
	unsigned int code;
	uint32_t p, p1;		/* next pid index, end */
	uint64_t k, hi;		/* by_type positions left in the current pid */
};

static void flame_rows__init(struct flame_rows *it, const struct model *m, unsigned int code,
			     const struct window *w)
{
	*it = (struct flame_rows){ .m = m, .w = w, .code = code, .p1 = m->npids };
	if (w->has_pid) {
		int64_t p = model__pid_index(m, w->pid);

		it->p = p < 0 ? 0 : (uint32_t)p;
		it->p1 = p < 0 ? 0 : it->p + 1;
	}
}

static bool flame_rows__next(struct flame_rows *it, uint32_t *rn)
{
	for (;;) {
		while (it->k < it->hi) {
			uint32_t r = model__by_type(it->m, it->k++);

			if (model__stack(it->m, r) > STACK_EMPTY) {
				*rn = r;
				return true;
			}
		}
		if (it->p >= it->p1)
			return false;
		model__type_window(it->m, it->code, it->p++, it->w->start, it->w->end, &it->k, &it->hi);
	}
}

/* A uniform sample of at most max rows, fixed by the request through seed: the rows with
 * the smallest (hash(row, seed), row).  bound lets most rows be skipped without sorting:
 * the smallest max of n uniform hashes lie below about max/n of the range; twice that is
 * allowed, and in the rare case too few rows pass, no bound.  Returns the sampled rows in
 * *picks (*npicks of them, out of *in_range rows of the type in the window) or -ENOMEM. */
static int flame_pick(const struct model *m, int code, const struct window *w, uint64_t seed,
		      uint64_t max, struct pick **picks, uint64_t *npicks, uint64_t *in_range)
{
	struct flame_rows it;
	uint64_t n = 0, got = 0, bound;
	struct pick *out;
	uint32_t rn;

	*picks = NULL;
	*npicks = 0;
	flame_rows__init(&it, m, (unsigned int)code, w);
	while (flame_rows__next(&it, &rn))
		n++;
	*in_range = n;
	if (!n)
		return 0;
	bound = n <= max || (double)max * 2.0 / (double)n >= 1.0 ? UINT64_MAX :
		(uint64_t)((double)max * 2.0 / (double)n * 18446744073709551615.0);
	for (;;) {
		uint64_t cap = bound == UINT64_MAX ? n : (max * 2 + 1024 < n ? max * 2 + 1024 : n);

		out = malloc(cap * sizeof(*out));
		if (!out)
			return -ENOMEM;
		got = 0;
		flame_rows__init(&it, m, (unsigned int)code, w);
		while (got < cap && flame_rows__next(&it, &rn)) {
			uint64_t h = rng__mix(rng__mix(rn) ^ seed);

			if (h <= bound)
				out[got++] = (struct pick){ h, rn };
		}
		/* Unbounded, or enough rows passed without filling cap (far more than expected
		 * passing means the bound did not hold: retry unbounded). */
		if (bound == UINT64_MAX || (got >= max && got < cap))
			break;
		free(out);
		bound = UINT64_MAX;
	}
	if (got > max) {
		qsort(out, got, sizeof(*out), pick_cmp);
		got = max;
	}
	*picks = out;
	*npicks = got;
	return 0;
}

/* Folded stacks for the sampled rows: per stack id, its rows (or their weights, or with
 * `blocked` their latency: off-CPU time). */
static int fold(const struct model *m, const struct pick *picks, uint64_t npicks,
		struct flame_input *in, uint64_t *total, bool blocked)
{
	const struct trace_rows *l = &m->labels;
	uint64_t nlabels = 0, bytes = 0, nstacks = 0, fi = 0, ti = 0, *count, *rows;
	int err = -ENOMEM;

	*total = 0;
	count = calloc(m->nstacks + 1, sizeof(*count));
	rows = calloc(m->nstacks + 1, sizeof(*rows));
	if (!count || !rows)
		goto cleanup;
	for (uint64_t i = 0; i < npicks; i++) {
		uint32_t rn = picks[i].rn, s = model__stack(m, rn);

		if (s >= m->nstacks)
			continue;
		if (!rows[s]++) {
			nstacks++;
			nlabels += l->stack_count[s];
			for (uint32_t k = 0; k < l->stack_count[s]; k++)
				bytes += l->label_len[l->stack_first[s] + k] + 9;
		}
		/* With a stack_weight column each sampled row stands for that many events. */
		if (blocked)
			count[s] += (m->flags[rn] & ROW_LAT) ? model__latency(m, rn) : 0;
		else
			count[s] += m->has_stack_weight && m->w16 ? model__weight(m, rn) : 1;
	}
	in->stacks = calloc(nstacks + 1, sizeof(*in->stacks));
	in->frames = malloc((nlabels + 1) * sizeof(*in->frames));
	in->lens = malloc((nlabels + 1) * sizeof(*in->lens));
	in->text = malloc(bytes + 1);
	if (!in->stacks || !in->frames || !in->lens || !in->text)
		goto cleanup;
	for (uint32_t s = 0; s < m->nstacks; s++) {
		struct flame_stack *fs;

		if (!rows[s])
			continue;
		fs = &in->stacks[in->n++];
		fs->count = count[s];
		fs->frames = &in->frames[fi];
		fs->lens = &in->lens[fi];
		fs->nframes = l->stack_count[s];
		for (uint32_t k = 0; k < l->stack_count[s]; k++) {
			uint32_t len;
			const char *label = trace_rows__label(l, l->stack_first[s] + k, &len);

			in->frames[fi] = in->text + ti;
			in->lens[fi] = (uint32_t)sanitize(label, len, in->text + ti);
			ti += in->lens[fi];
			fi++;
		}
		*total += fs->count;
	}
	err = 0;
cleanup:
	free(count);
	free(rows);
	return err;
}

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
	struct flame_input in = { 0 };
	uint64_t max_stacks, total = 0, in_range = 0;
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
					   hmap__fnv1a(type, strlen(type), HMAP_FNV_SEED) ^ (w.has_pid ? rng__mix(w.pid + 1) : 0));
		struct pick *picks = NULL;
		uint64_t npicks = 0;
		/* off_cpu rows weigh what they lasted: a flame graph of blocked time. */
		bool blocked = code == m->code_of[EV_OFF_CPU] && m->has_latency_ns;

		status = flame_pick(m, code, &w, seed, max_stacks, &picks, &npicks, &in_range);
		if (!status)
			status = fold(m, picks, npicks, &in, &total, blocked);
		free(picks);
		if (status) {
			status = api__fail(rq, 500, "out of memory");
			goto cleanup;
		}
		snprintf(title, sizeof(title), "probex \xc2\xb7 %s", type);
		if (total && !(svg = flame__svg(title, blocked ? "ns off-CPU" : "samples", in.stacks,
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
	json__u64(&rq->out, total);
	json__key(&rq->out, "total_in_range");
	json__u64(&rq->out, in_range);
	json__key(&rq->out, "svg");
	if (svg)
		json__strn(&rq->out, svg, svg_len);
	else
		json__null(&rq->out);
	json__key(&rq->out, "stacks");
	stacks__json(&rq->out, in.stacks, in.n);
	json__obj_end(&rq->out);
cleanup:
	free(svg);
	free(in.stacks);
	free(in.frames);
	free(in.lens);
	free(in.text);
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
	uint64_t pid, limit, offset, total = 0, lo = 0, hi = 0, start, end, skipped = 0, shown = 0;
	const char *types = rq->p.get(rq->p.ctx, "event_types");
	bool filter = types && *types;
	struct payload *pl = NULL;
	uint64_t *page = NULL;
	uint32_t *rows = NULL;
	int64_t p;

	if (params__range(&rq->p, &start, &end) ||
	    params__u64(&rq->p, "pid", true, UINT32_MAX, &pid, NULL) ||
	    params__count(&rq->p, "limit", true, 10000, 0, &limit) ||
	    params__u64(&rq->p, "offset", true, UINT64_MAX, &offset, NULL))
		return api__bad_param(rq);
	if (filter)
		params__split(types, add_type, &f);
	p = model__pid_index(m, (uint32_t)pid);
	if (p >= 0)
		model__pid_window(m, (uint32_t)p, start, end, &lo, &hi);
	/* The page first (rows and their count), then its payload in one fetch. */
	page = malloc((limit < hi - lo ? limit : hi - lo) * sizeof(*page) + 1);
	if (!page)
		return api__fail(rq, 500, "out of memory");
	/* Asked-for types the trace lacks match nothing (f.n == 0 with a filter). */
	for (uint64_t r = lo; r < hi && (!filter || f.n); r++) {
		if (filter && !f.seen[model__type(m, r)])
			continue;
		total++;
		if (skipped < offset) {
			skipped++;
			continue;
		}
		if (shown == limit) {
			if (!filter) {	/* the rest all count: no need to walk them */
				total += hi - r - 1;
				break;
			}
			continue;
		}
		page[shown++] = r;
	}
	if (!(rows = malloc(shown * sizeof(*rows) + 1))) {
		free(page);
		return api__fail(rq, 500, "out of memory");
	}
	for (uint64_t i = 0; i < shown; i++)
		rows[i] = model__file_row(m, page[i]);
	/* A payload the file cannot give (a damaged column the other endpoints never read)
	 * leaves the list usable: the rows go out without it, and the reason with them. */
	if (payload__fetch(rq, rows, (uint32_t)shown, &pl))
		pl = NULL;
	json__obj_begin(&rq->out);
	json__key(&rq->out, "events");
	json__arr_begin(&rq->out);
	for (uint64_t i = 0; i < shown; i++) {
		uint64_t r = page[i];

		json__obj_begin(&rq->out);
		json__key(&rq->out, "ts_ns");
		json__u64(&rq->out, model__ts(m, r));
		/* The reference has no latency here; probex's own files carry it. */
		json__key(&rq->out, "latency_ns");
		if (m->has_latency_ns && (m->flags[r] & ROW_LAT))
			json__u64(&rq->out, model__latency(m, r));
		else
			json__null(&rq->out);
		json__key(&rq->out, "event_type");
		json__str(&rq->out, m->type_names[model__type(m, r)]);
		json__key(&rq->out, "pid");
		json__u64(&rq->out, pid);
		json__key(&rq->out, "stack_trace");
		api__stack(rq, r);
		/* Additive: the row's other non-null columns (fd, count, ret, cpu, ...). */
		payload__write(pl, &rq->out, rows[i]);
		json__obj_end(&rq->out);
	}
	json__arr_end(&rq->out);
	json__key(&rq->out, "total_in_range");
	json__u64(&rq->out, total);
	if (!pl) {
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

