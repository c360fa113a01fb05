#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/rng.h"
#include "common/utf8.h"
#include "model/flame.h"

/* The 0.1 viewer's label clean-up: ';' would split the folded line, newlines the SVG
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
	*it = (struct flame_rows){ .m = m, .w = w, .code = code };
	window__pids(m, w, &it->p, &it->p1);
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
		if (!window__takes_index(it->m, it->w, it->p)) {
			it->p++;
			continue;
		}
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
		struct flame *in, uint64_t *total, bool blocked)
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

int model__flame(const struct model *m, unsigned int code, const struct window *w, uint64_t seed,
		 uint64_t max, struct flame *out)
{
	struct pick *picks = NULL;
	uint64_t npicks = 0;
	int err;

	memset(out, 0, sizeof(*out));
	/* off_cpu rows weigh what they lasted: a flame graph of blocked time. */
	out->blocked = (int)code == m->code_of[EV_OFF_CPU] && m->has_latency_ns;
	err = flame_pick(m, (int)code, w, seed, max, &picks, &npicks, &out->in_range);
	if (!err)
		err = fold(m, picks, npicks, out, &out->total, out->blocked);
	free(picks);
	return err;
}

void flame__free(struct flame *f)
{
	free(f->stacks);
	free(f->frames);
	free(f->lens);
	free(f->text);
	memset(f, 0, sizeof(*f));
}
