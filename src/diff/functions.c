/* Functions by self and total time of the stacks of one event type (CPU samples: samples
 * x period, each run with its own period), in both runs, sorted by the absolute change of
 * total; and the same stacks as folded lines with both weights. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff_int.h"
#include "trace/schema.h"

struct fn {
	int64_t self[2], total[2];
	uint32_t key;
	const struct ex_frame *frame;
};

struct profiles {
	struct ex_profile p[2];
	struct intern keys;
	struct fn *f;
	uint32_t n;
};

static bool is_cpu(const struct diff *d)
{
	return !strcmp(d->o->r.event_type, event_type_names[EV_CPU_SAMPLE]);
}

/* A weight as shown: CPU samples as ns of CPU time, other event types as they are. */
static int64_t scale(const struct diff *d, int side, uint64_t w)
{
	return is_cpu(d) ? (int64_t)llround((double)w * d->s[side].period_ns) : (int64_t)w;
}

static int load(struct diff *d, struct profiles *pr)
{
	struct export_opts eo = { .fmt = EXPORT_FOLDED, .event_type = d->o->r.event_type };
	int err = 0;

	for (int i = 0; i < 2 && !err; i++) {
		eo.tf = &d->s[i].tf;
		err = ex_profile__load(&pr->p[i], d->s[i].r.con, &eo, d->s[i].tf.sample_freq_hz);
	}
	return err;
}

static void unload(struct profiles *pr)
{
	ex_profile__free(&pr->p[0]);
	ex_profile__free(&pr->p[1]);
	intern__free(&pr->keys);
	free(pr->f);
}

/* A function's key: its kind ('k' kernel, 'u' user) and name, as report shows it. */
static int add_side(struct diff *d, struct profiles *pr, int side)
{
	const struct ex_profile *p = &pr->p[side];
	struct fstat *st = report__function_stats(p);
	char buf[1024];

	if (!st)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->nframes; i++) {
		const struct ex_frame *fr = &p->frames[i];
		int n = snprintf(buf, sizeof(buf), "%c%s", fr->kernel ? 'k' : 'u', fr->name);
		int64_t id;

		if (fr->process)
			continue;
		id = diff__key(&pr->keys, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
		if (id < 0) {
			free(st);
			return (int)id;
		}
		if (pr->keys.n > pr->n) {
			struct fn *f = realloc(pr->f, pr->keys.n * sizeof(*f));

			if (!f) {
				free(st);
				return -ENOMEM;
			}
			pr->f = f;
			memset(&f[pr->n], 0, (pr->keys.n - pr->n) * sizeof(*f));
			pr->n = pr->keys.n;
		}
		pr->f[id].key = (uint32_t)id;
		pr->f[id].frame = fr;
		pr->f[id].self[side] = scale(d, side, st[i].self);
		pr->f[id].total[side] = scale(d, side, st[i].total);
	}
	free(st);
	return 0;
}

static int cmp_change(const void *x, const void *y)
{
	const struct fn *a = x, *b = y;
	uint64_t da = diff__abs(a->total[NEW], a->total[BASE]), db = diff__abs(b->total[NEW], b->total[BASE]);

	if (da != db)
		return da > db ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

static const struct rcol ns_cols[] = {
	{ "base self", RC_NS, "base_self_ns" }, { "new self", RC_NS, "new_self_ns" },
	{ "base total", RC_NS, "base_total_ns" }, { "new total", RC_NS, "new_total_ns" },
	{ "delta", RC_DNS, "delta_total_ns" }, { "ratio", RC_RATIO, NULL },
	{ "base%", RC_PCT, "base_total_fraction" }, { "new%", RC_PCT, "new_total_fraction" },
	{ "function", RC_TEXT, "name" },
};
static const struct rcol w_cols[] = {
	{ "base self", RC_INT, "base_self" }, { "new self", RC_INT, "new_self" },
	{ "base total", RC_INT, "base_total" }, { "new total", RC_INT, "new_total" },
	{ "delta", RC_INT, "delta_total" }, { "ratio", RC_RATIO, NULL },
	{ "base%", RC_PCT, "base_total_fraction" }, { "new%", RC_PCT, "new_total_fraction" },
	{ "function", RC_TEXT, "name" },
};

static void table(struct diff *d, struct profiles *pr)
{
	int64_t all[2] = { scale(d, BASE, pr->p[BASE].total), scale(d, NEW, pr->p[NEW].total) };
	char title[200], name[1040];
	struct rtable t;

	snprintf(title, sizeof(title), "Functions by %s (%s; sorted by change of total)",
		 is_cpu(d) ? "CPU time" : d->o->r.event_type,
		 is_cpu(d) ? "samples x period" : "events, as stack_weight counts them");
	rtable__init(&t, "functions", title, is_cpu(d) ? ns_cols : w_cols, 9);
	for (uint32_t i = 0; i < pr->n; i++) {
		const struct fn *f = &pr->f[i];

		if (i >= d->o->r.top) {
			t.left_out = pr->n - i;
			break;
		}
		rtable__row(&t);
		rtable__int(&t, f->self[BASE]);
		rtable__int(&t, f->self[NEW]);
		rtable__int(&t, f->total[BASE]);
		rtable__int(&t, f->total[NEW]);
		rtable__int(&t, f->total[NEW] - f->total[BASE]);
		f->total[BASE] ? rtable__ratio(&t, (double)f->total[NEW] / (double)f->total[BASE]) : rtable__null(&t);
		rtable__pct(&t, all[BASE] ? (double)f->total[BASE] / (double)all[BASE] : 0);
		rtable__pct(&t, all[NEW] ? (double)f->total[NEW] / (double)all[NEW] : 0);
		snprintf(name, sizeof(name), "%s%s", f->frame->name, f->frame->kernel ? " [k]" : "");
		rtable__str(&t, name);
	}
	diff__emit(d, &t);
}

int diff__functions(struct diff *d)
{
	struct profiles pr = { 0 };
	int err;

	err = load(d, &pr);
	if (!err)
		err = add_side(d, &pr, BASE);
	if (!err)
		err = add_side(d, &pr, NEW);
	if (!err) {
		if (pr.n)
			qsort(pr.f, pr.n, sizeof(*pr.f), cmp_change);
		table(d, &pr);
	}
	unload(&pr);
	return err;
}

/* Folded lines "stack base_weight new_weight", weights as `probex export --format
 * folded` gives them; in the order of first appearance, base first. */
int diff__folded(struct diff *d, FILE *out)
{
	struct profiles pr = { 0 };
	struct strbuf b = { 0 };
	uint64_t (*w)[2] = NULL;
	uint32_t cap = 0;
	int err;

	err = load(d, &pr);
	for (int side = 0; side < 2 && !err; side++) {
		const struct ex_profile *p = &pr.p[side];

		for (uint64_t i = 0; i < p->nstacks && !err; i++) {
			int64_t id;

			b.len = 0;
			export__folded_stack(p, &p->stacks[i], &b);
			if (b.err || (id = diff__key(&pr.keys, b.s, b.len)) < 0) {
				err = b.err ? b.err : -ENOMEM;
				break;
			}
			if (pr.keys.n > cap) {
				uint32_t ncap = pr.keys.n * 2;
				void *nw = realloc(w, ncap * sizeof(*w));

				if (!nw) {
					err = -ENOMEM;
					break;
				}
				w = nw;
				memset(&w[cap], 0, (ncap - cap) * sizeof(*w));
				cap = ncap;
			}
			w[id][side] += p->stacks[i].weight;
		}
	}
	for (uint32_t i = 0; !err && i < pr.keys.n; i++)
		fprintf(out, "%s %llu %llu\n", pr.keys.strs[i], (unsigned long long)w[i][BASE],
			(unsigned long long)w[i][NEW]);
	if (!err && ferror(out))
		err = -EIO;
	err = err ? err : b.err;
	strbuf__free(&b);
	free(w);
	unload(&pr);
	return err;
}
