/* Endpoints that show stacks: event_flamegraph (a sampled flame graph of one event type)
 * and event_list (a page of one pid's events).  Rows are chosen in DuckDB (fl and ev
 * tables), labels come from the interned stack table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/synth_rand.h"
#include "viewer/api.h"
#include "viewer/flame_svg.h"

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

int ep_event_flamegraph(struct request *rq)
{
	const struct model *m = &rq->st->m;
	struct flame_input in = { 0 };
	uint64_t max_stacks, total = 0;
	duckdb_prepared_statement s;
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
					   fnv(type) ^ (w.has_pid ? synth__mix(w.pid + 1) : 0));

		if (!(c = api__conn(rq)) ||
		    !(s = conn__stmt(c, w.has_pid ? Q_FLAME_PID : Q_FLAME, rq->error, sizeof(rq->error))))
			return 500;
		duckdb_bind_uint8(s, 1, (uint8_t)code);
		duckdb_bind_uint64(s, 2, w.start);
		duckdb_bind_uint64(s, 3, w.end);
		duckdb_bind_uint64(s, 4, seed);
		duckdb_bind_uint64(s, 5, max_stacks);
		if (w.has_pid)
			duckdb_bind_uint32(s, 6, w.pid);
		if (conn__run(s, &res, rq->error, sizeof(rq->error)))
			return 500;
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

static int bind_types(duckdb_prepared_statement s, idx_t param, const struct type_filter *f)
{
	duckdb_logical_type t = duckdb_create_logical_type(DUCKDB_TYPE_UTINYINT);
	duckdb_value vals[256], list;
	int err = 0;

	for (unsigned int i = 0; i < f->n; i++)
		vals[i] = duckdb_create_uint8(f->codes[i]);
	list = duckdb_create_list_value(t, vals, f->n);
	if (!list || duckdb_bind_value(s, param, list) == DuckDBError)
		err = -EIO;
	duckdb_destroy_value(&list);
	for (unsigned int i = 0; i < f->n; i++)
		duckdb_destroy_value(&vals[i]);
	duckdb_destroy_logical_type(&t);
	return err;
}

static int list_query(struct request *rq, enum stmt_id id, const struct window *w,
		      uint64_t limit, uint64_t offset, const struct type_filter *f, duckdb_result *res)
{
	duckdb_prepared_statement s;
	struct conn_ctx *c;

	if (!(c = api__conn(rq)) || !(s = conn__stmt(c, id, rq->error, sizeof(rq->error))))
		return 500;
	duckdb_bind_uint32(s, 1, w->pid);
	duckdb_bind_uint64(s, 2, w->start);
	duckdb_bind_uint64(s, 3, w->end);
	if (id == Q_LIST_PAGE || id == Q_LIST_PAGE_TYPES) {
		duckdb_bind_uint64(s, 4, limit);
		duckdb_bind_int64(s, 5, offset > INT64_MAX ? INT64_MAX : (int64_t)offset);
	}
	if (f && bind_types(s, id == Q_LIST_PAGE_TYPES ? 6 : 4, f))
		return api__fail(rq, 500, "cannot bind the event type list");
	return conn__run(s, res, rq->error, sizeof(rq->error)) ? 500 : 0;
}

int ep_event_list(struct request *rq)
{
	const struct model *m = &rq->st->m;
	struct type_filter f = { .m = m };
	uint64_t pid, limit, offset, total = 0;
	const char *types = rq->p.get(rq->p.ctx, "event_types");
	bool filter = types && *types;
	duckdb_data_chunk chunk;
	duckdb_result res;
	struct window w;
	int status;

	if (params__range(&rq->p, &w.start, &w.end) ||
	    params__u64(&rq->p, "pid", true, UINT32_MAX, &pid, NULL) ||
	    params__count(&rq->p, "limit", true, 10000, 0, &limit) ||
	    params__u64(&rq->p, "offset", true, UINT64_MAX, &offset, NULL))
		return api__bad_param(rq);
	w.has_pid = true;
	w.pid = (uint32_t)pid;
	if (filter)
		params__split(types, add_type, &f);
	json__obj_begin(&rq->out);
	json__key(&rq->out, "events");
	json__arr_begin(&rq->out);
	/* Asked-for types that the trace lacks match nothing. */
	if (!filter || f.n) {
		if ((status = list_query(rq, filter ? Q_LIST_TOTAL_TYPES : Q_LIST_TOTAL, &w, 0, 0,
					 filter ? &f : NULL, &res)))
			return status;
		total = duckdb_value_uint64(&res, 0, 0);
		duckdb_destroy_result(&res);
		if ((status = list_query(rq, filter ? Q_LIST_PAGE_TYPES : Q_LIST_PAGE, &w, limit, offset,
					 filter ? &f : NULL, &res)))
			return status;
		while ((chunk = duckdb_fetch_chunk(res))) {
			uint32_t *fr = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 0));

			for (idx_t i = 0; i < duckdb_data_chunk_get_size(chunk); i++) {
				uint32_t r = m->rn_of[fr[i]];

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
				json__obj_end(&rq->out);
			}
			duckdb_destroy_data_chunk(&chunk);
		}
		duckdb_destroy_result(&res);
	}
	json__arr_end(&rq->out);
	json__key(&rq->out, "total_in_range");
	json__u64(&rq->out, total);
	json__obj_end(&rq->out);
	return 200;
}
