/* The CPU (or other event type's) stacks as perf report --stdio shows them: functions by
 * total ("children") share with their self share, then for the heaviest functions the
 * callees they spend time in, or with --inverted the callers they are reached from.
 * Weights follow stack_weight; the process frame at each root is not a function. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "export/export.h"
#include "report/report.h"
#include "trace/schema.h"

#define CHAIN_FUNCS 8	/* functions whose callees/callers are listed */
#define CHAIN_ROWS 4	/* callees/callers per function */

static int cmp_total(const void *x, const void *y)
{
	const struct fstat *a = x, *b = y;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

struct fstat *report__function_stats(const struct ex_profile *p)
{
	struct fstat *f = calloc(p->nframes + 1, sizeof(*f));

	for (uint32_t i = 0; f && i < p->nframes; i++)
		f[i].id = i;
	for (uint64_t s = 0; f && s < p->nstacks; s++) {
		const struct ex_stack *st = &p->stacks[s];

		if (st->n)
			f[st->frames[st->n - 1]].self += st->weight;
		/* Recursion: a function counts once per stack in its total. */
		for (uint32_t k = 0; k < st->n; k++) {
			struct fstat *x = &f[st->frames[k]];

			if (x->seen != s + 1) {
				x->seen = s + 1;
				x->total += st->weight;
			}
		}
	}
	return f;
}

static const char *frame_name(const struct ex_profile *p, uint32_t id, char *buf, size_t size)
{
	const struct ex_frame *f = &p->frames[id];

	if (f->process)
		snprintf(buf, size, "[%s]", f->name);
	else
		snprintf(buf, size, "%s%s", f->name, f->kernel ? " [k]" : "");
	return buf;
}

static void functions_table(struct report *r, const struct ex_profile *p, struct fstat *f, uint32_t n)
{
	static const struct rcol cols[] = {
		{ "total%", RC_PCT, "total_fraction" }, { "self%", RC_PCT, "self_fraction" },
		{ "total", RC_INT, "total_weight" }, { "self", RC_INT, "self_weight" },
		{ "function", RC_TEXT, NULL },
	};
	char title[160], buf[1024];
	struct rtable t;
	unsigned int rows = 0;

	snprintf(title, sizeof(title), "Top functions of %s stacks (%llu %s; perf report --children style)",
		 r->o->event_type, (unsigned long long)p->total, p->by_ns ? "ns blocked" : "events");
	rtable__init(&t, "functions", title, cols, 5);
	for (uint32_t i = 0; i < n; i++) {
		if (p->frames[f[i].id].process)
			continue;
		if (rows++ >= r->o->top) {
			t.left_out++;
			continue;
		}
		rtable__row(&t);
		rtable__pct(&t, (double)f[i].total / (double)p->total);
		rtable__pct(&t, (double)f[i].self / (double)p->total);
		rtable__int(&t, (int64_t)f[i].total);
		rtable__int(&t, (int64_t)f[i].self);
		rtable__str(&t, frame_name(p, f[i].id, buf, sizeof(buf)));
	}
	report__emit(r, &t);
}

struct nb {
	int64_t id;		/* -1: the function itself (self time, callee view) */
	uint64_t w;
};

static int cmp_nb(const void *x, const void *y)
{
	const struct nb *a = x, *b = y;

	return a->w != b->w ? (a->w > b->w ? -1 : 1) : (a->id < b->id ? -1 : a->id > b->id);
}

/* Weight per direct callee (or caller) of function id, each stack counted once per pair. */
static size_t neighbours(const struct ex_profile *p, uint32_t id, bool callers, struct nb *nb)
{
	size_t n = 0;

	for (uint64_t s = 0; s < p->nstacks; s++) {
		const struct ex_stack *st = &p->stacks[s];

		for (uint32_t k = 0; k < st->n; k++) {
			int64_t other;
			size_t j;

			if (st->frames[k] != id)
				continue;
			other = callers ? (k ? (int64_t)st->frames[k - 1] : -2) :
				(k + 1 < st->n ? (int64_t)st->frames[k + 1] : -1);
			for (j = 0; j < n && nb[j].id != other; j++)
				;
			if (j == n)
				nb[n++] = (struct nb){ other, 0 };
			nb[j].w += st->weight;
			break;	/* the outermost call of a recursive function */
		}
	}
	qsort(nb, n, sizeof(*nb), cmp_nb);
	return n;
}

static void chains_table(struct report *r, const struct ex_profile *p, const struct fstat *f, uint32_t n)
{
	static const struct rcol cols[] = {
		{ "function", RC_TEXT, NULL }, { "callee", RC_TEXT, NULL }, { "share%", RC_PCT, "fraction" },
		{ "weight", RC_INT, NULL },
	};
	static const struct rcol icols[] = {
		{ "function", RC_TEXT, NULL }, { "caller", RC_TEXT, NULL }, { "share%", RC_PCT, "fraction" },
		{ "weight", RC_INT, NULL },
	};
	bool inv = r->o->inverted;
	struct nb *nb = calloc(p->nframes + 2, sizeof(*nb));
	char a[1024], b[1024];
	struct rtable t;
	unsigned int funcs = 0;

	rtable__init(&t, inv ? "callers" : "callees",
		     inv ? "Callers of the top functions (share of all events)" :
			   "Callees of the top functions (share of all events; [self]: in the function)",
		     inv ? icols : cols, 4);
	for (uint32_t i = 0; nb && i < n && funcs < CHAIN_FUNCS; i++) {
		size_t m;

		if (p->frames[f[i].id].process)
			continue;
		funcs++;
		m = neighbours(p, f[i].id, inv, nb);
		for (size_t k = 0; k < m && k < CHAIN_ROWS; k++) {
			rtable__row(&t);
			rtable__str(&t, k ? "" : frame_name(p, f[i].id, a, sizeof(a)));
			rtable__str(&t, nb[k].id >= 0 ? frame_name(p, (uint32_t)nb[k].id, b, sizeof(b)) :
					nb[k].id == -1 ? "[self]" : "[root]");
			rtable__pct(&t, (double)nb[k].w / (double)p->total);
			rtable__int(&t, (int64_t)nb[k].w);
		}
	}
	report__emit(r, &t);
	free(nb);
}

/* A stack read from the user's code, leaf first, in at most width columns: the kernel end
 * shortened to its leaf and how many frames more, the first user frame whole, then its
 * callers while they fit; a frame is never cut, the rest is counted. */
static void stack_text(const struct ex_profile *p, const struct ex_stack *st, size_t width,
		       struct strbuf *b)
{
	uint32_t k = st->n, nk = 0;
	char name[1024];

	const char *ours = NULL;

	while (nk < st->n && p->frames[st->frames[st->n - 1 - nk]].kernel) {
		const char *f = p->frames[st->frames[st->n - 1 - nk]].name;

		/* Time in probex's own programs is named as probex's. */
		if (!ours && !strncmp(f, STACK_PROBEX_BPF_PREFIX, strlen(STACK_PROBEX_BPF_PREFIX)))
			ours = f + strlen(STACK_PROBEX_BPF_PREFIX);
		nk++;
	}
	if (nk) {
		if (ours)
			snprintf(name, sizeof(name), "[probex] %.*s", (int)strcspn(ours, " "), ours);
		else
			frame_name(p, st->frames[st->n - 1], name, sizeof(name));
		strbuf__addf(b, nk > 1 ? "%s +%u" : "%s", name, nk - 1);
		k -= nk;
	}
	for (bool first = true; k-- > 0; first = false) {
		size_t len;

		frame_name(p, st->frames[k], name, sizeof(name));
		len = strlen(name) + (b->len ? 3 : 0);
		/* Room for the count of what is left out. */
		if (!first && b->len + len + (k ? 7 : 0) > width) {
			strbuf__addf(b, " < +%u", k + 1);
			return;
		}
		strbuf__addf(b, "%s%s", b->len ? " < " : "", name);
	}
}

/* The heaviest distinct stacks (ex_profile__load orders them by weight), leaf first. */
static void stacks_table(struct report *r, const struct ex_profile *p)
{
	static const struct rcol cols[] = {
		{ "share%", RC_PCT, "fraction" }, { "weight", RC_INT, NULL },
		{ "stack (leaf first; kernel frames shortened: +N more)", RC_TEXT, "stack" },
	};
	char name[1024];
	struct rtable t;
	int digits = 6;

	rtable__init(&t, "stacks", "Top stacks", cols, 3);
	t.no_cut = true;
	for (uint64_t w = p->nstacks ? p->stacks[0].weight : 0; w >= 1000000; w /= 10)
		digits++;
	for (uint64_t i = 0; i < p->nstacks; i++) {
		const struct ex_stack *st = &p->stacks[i];
		struct strbuf b = { 0 };

		if (i >= r->o->top / 4 + 1) {
			t.left_out = p->nstacks - i;
			break;
		}
		if (r->j) {	/* JSON: every frame */
			for (uint32_t k = st->n; k-- > 0;) {
				frame_name(p, st->frames[k], name, sizeof(name));
				strbuf__addf(&b, "%s%s", k + 1 < st->n ? " < " : "", name);
			}
		} else {
			/* Two spaces before each column; share% is at most 7 wide. */
			stack_text(p, st, REPORT_WIDTH - 2 - 9 - (size_t)(digits + 2), &b);
		}
		rtable__row(&t);
		rtable__pct(&t, (double)st->weight / (double)p->total);
		rtable__int(&t, (int64_t)st->weight);
		rtable__str(&t, b.s ? b.s : "");
		strbuf__free(&b);
	}
	report__emit(r, &t);
}

/* What the weights below count: off-CPU stacks weigh the ns they blocked. */
static void weight_unit(struct report *r, const struct ex_profile *p)
{
	const char *u = p->by_ns ? "ns" : !strcmp(p->event_type, "cpu_sample") ? "samples" : "events";

	if (r->j) {
		json__key(r->j, "weight_unit");
		json__str(r->j, u);
	} else {
		fprintf(r->out, "\nStack weights of %s: %s%s\n", p->event_type, u,
			p->by_ns ? " blocked (latency_ns)" : "");
	}
}

int report__stacks(struct report *r)
{
	struct export_opts eo = { .fmt = EXPORT_FOLDED, .event_type = r->o->event_type,
				  .progress = r->o->progress, .tf = r->tf };
	struct ex_profile p;
	struct fstat *f;
	int err;

	/* `events` is already filtered by pid and time. */
	err = ex_profile__load(&p, r->con, &eo, r->sample_freq_hz);
	if (err)
		return err;
	f = report__function_stats(&p);
	if (!f) {
		ex_profile__free(&p);
		return -ENOMEM;
	}
	qsort(f, p.nframes, sizeof(*f), cmp_total);
	weight_unit(r, &p);
	functions_table(r, &p, f, p.nframes);
	chains_table(r, &p, f, p.nframes);
	stacks_table(r, &p);
	free(f);
	ex_profile__free(&p);
	return 0;
}
