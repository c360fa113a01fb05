/* Endpoints that show stacks: event_flamegraph (a sampled flame graph of one event type,
 * rows chosen in DuckDB over the fl table) and event_list (a page of one pid's events,
 * straight from the sorted rows).  Labels come from the interned stack table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/synth_rand.h"
#include "viewer/api.h"
#include "viewer/flame_svg.h"
#include "viewer/payload.h"

/* The reference's label clean-up: ';' would split the folded line, newlines the SVG
 * text; blank labels become "[unknown]".  (Rust's trim also strips non-ASCII Unicode
 * spaces; symbol names do not contain them.) */
static size_t sanitize(const char *in, uint32_t len, char *out)
{
	size_t a = 0, b = len, n = 0;

	for (uint32_t i = 0; i < len; i++) {
		char c = in[i];

		out[i] = c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c;
	}
	while (a < b && (out[a] == ' ' || (out[a] >= '\t' && out[a] <= '\r')))
		a++;
	while (b > a && (out[b - 1] == ' ' || (out[b - 1] >= '\t' && out[b - 1] <= '\r')))
		b--;
	if (a == b) {
		memcpy(out, "[unknown]", 9);
		return 9;
	}
	memmove(out, out + a, b - a);
	n = b - a;
	return n;
}

static uint64_t fnv(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

struct flame_input {
	struct flame_stack *stacks;
	const char **frames;
	uint32_t *lens;
	char *text;
	size_t n;
};

/* Folded stacks for the sampled stack ids (rows: sid, rows, weight sum). */
static int fold(const struct model *m, duckdb_result *res, struct flame_input *in, uint64_t *total)
{
	const struct trace_rows *l = &m->labels;
	uint64_t nlabels = 0, bytes = 0, nrows = 0, fi = 0, ti = 0;
	duckdb_data_chunk chunk;
	idx_t ci = 0;

	*total = 0;
	/* First pass: sizes. */
	while ((chunk = duckdb_result_get_chunk(*res, ci++))) {
		uint32_t *sid = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 0));

		for (idx_t i = 0; i < duckdb_data_chunk_get_size(chunk); i++) {
			uint32_t s = sid[i];

			if (s >= m->nstacks)
				continue;
			nlabels += l->stack_count[s];
			for (uint32_t k = 0; k < l->stack_count[s]; k++)
				bytes += l->label_len[l->stack_first[s] + k] + 9;
			nrows++;
		}
		duckdb_destroy_data_chunk(&chunk);
	}
	in->stacks = calloc(nrows + 1, sizeof(*in->stacks));
	in->frames = malloc((nlabels + 1) * sizeof(*in->frames));
	in->lens = malloc((nlabels + 1) * sizeof(*in->lens));
	in->text = malloc(bytes + 1);
	if (!in->stacks || !in->frames || !in->lens || !in->text)
		return -ENOMEM;
	ci = 0;
	while ((chunk = duckdb_result_get_chunk(*res, ci++))) {
		uint32_t *sid = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 0));
		uint64_t *rows = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 1));
		uint64_t *wsum = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 2));

		for (idx_t i = 0; i < duckdb_data_chunk_get_size(chunk); i++) {
			struct flame_stack *fs = &in->stacks[in->n];
			uint32_t s = sid[i];

			if (s >= m->nstacks)
				continue;
			/* With a stack_weight column each sampled row stands for that many events. */
			fs->count = m->has_stack_weight ? wsum[i] : rows[i];
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
			in->n++;
		}
		duckdb_destroy_data_chunk(&chunk);
	}
	return 0;
}

/* Rows of the type (and pid) in the window; -1 on a query failure (rq->error set). */
static int64_t flame_count(struct request *rq, struct conn_ctx *c, int code, const struct window *w)
{
	duckdb_prepared_statement s;
	duckdb_result res;
	int64_t n;

	if (!(s = conn__stmt(c, w->has_pid ? Q_FLAME_COUNT_PID : Q_FLAME_COUNT, rq->error, sizeof(rq->error))))
		return -1;
	duckdb_bind_uint8(s, 1, (uint8_t)code);
	duckdb_bind_uint64(s, 2, w->start);
	duckdb_bind_uint64(s, 3, w->end);
	if (w->has_pid)
		duckdb_bind_uint32(s, 4, w->pid);
	if (conn__run(s, &res, rq->error, sizeof(rq->error)))
		return -1;
	n = (int64_t)duckdb_value_uint64(&res, 0, 0);
	duckdb_destroy_result(&res);
	return n;
}

/* The sampled rows' stacks (sid, rows, weight sum), bounded by hash <= bound. */
static int flame_sample(struct request *rq, struct conn_ctx *c, int code, const struct window *w,
			uint64_t seed, uint64_t max, uint64_t bound, duckdb_result *res)
{
	duckdb_prepared_statement s;

	if (!(s = conn__stmt(c, w->has_pid ? Q_FLAME_PID : Q_FLAME, rq->error, sizeof(rq->error))))
		return -1;
	duckdb_bind_uint8(s, 1, (uint8_t)code);
	duckdb_bind_uint64(s, 2, w->start);
	duckdb_bind_uint64(s, 3, w->end);
	duckdb_bind_uint64(s, 4, seed);
	duckdb_bind_uint64(s, 5, max);
	duckdb_bind_uint64(s, 6, bound);
	if (w->has_pid)
		duckdb_bind_uint32(s, 7, w->pid);
	return conn__run(s, res, rq->error, sizeof(rq->error)) ? -1 : 0;
}

static uint64_t sampled_rows(duckdb_result *res)
{
	uint64_t n = 0;
	duckdb_data_chunk chunk;

	for (idx_t ci = 0; (chunk = duckdb_result_get_chunk(*res, ci)); ci++) {
		uint64_t *rows = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 1));

		for (idx_t i = 0; i < duckdb_data_chunk_get_size(chunk); i++)
			n += rows[i];
		duckdb_destroy_data_chunk(&chunk);
	}
	return n;
}

int ep_event_flamegraph(struct request *rq)
{
	const struct model *m = &rq->st->m;
	struct flame_input in = { 0 };
	uint64_t max_stacks, total = 0;
	const char *type;
	char *svg = NULL, title[256];
	size_t svg_len = 0;
	duckdb_result res;
	struct conn_ctx *c;
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
		uint64_t seed = synth__mix(synth__mix(w.start) ^ synth__mix(w.end + max_stacks) ^
					   fnv(type) ^ (w.has_pid ? synth__mix(w.pid + 1) : 0)), bound;
		int64_t n;

		if (!(c = api__conn(rq)) || (n = flame_count(rq, c, code, &w)) < 0)
			return 500;
		/* The smallest max_stacks hashes of n uniform ones lie below about
		 * max_stacks/n of the range: allow twice that, and fall back to no bound in
		 * the rare case too few rows pass. */
		bound = (uint64_t)n <= max_stacks ? UINT64_MAX :
			(double)max_stacks * 2.0 / (double)n >= 1.0 ? UINT64_MAX :
			(uint64_t)((double)max_stacks * 2.0 / (double)n * 18446744073709551615.0);
		if (flame_sample(rq, c, code, &w, seed, max_stacks, bound, &res))
			return 500;
		if (bound != UINT64_MAX && sampled_rows(&res) < max_stacks) {
			duckdb_destroy_result(&res);
			if (flame_sample(rq, c, code, &w, seed, max_stacks, UINT64_MAX, &res))
				return 500;
		}
		status = fold(m, &res, &in, &total);
		duckdb_destroy_result(&res);
		if (status) {
			status = api__fail(rq, 500, "out of memory");
			goto cleanup;
		}
		snprintf(title, sizeof(title), "probex \xc2\xb7 %s", type);
		if (total && !(svg = flame__svg(title, "samples", in.stacks, in.n, &svg_len))) {
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
	json__key(&rq->out, "svg");
	if (svg)
		json__strn(&rq->out, svg, svg_len);
	else
		json__null(&rq->out);
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
	uint8_t codes[256];
	bool seen[256];
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
		f->codes[f->n++] = (uint8_t)code;
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
		if (filter && !f.seen[m->type[r]])
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
		rows[i] = m->file_row[page[i]];
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
		json__u64(&rq->out, m->ts[r]);
		/* The reference has no latency here; probex's own files carry it. */
		json__key(&rq->out, "latency_ns");
		if (m->latency && (m->flags[r] & ROW_LAT))
			json__u64(&rq->out, m->latency[r]);
		else
			json__null(&rq->out);
		json__key(&rq->out, "event_type");
		json__str(&rq->out, m->type_names[m->type[r]]);
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

