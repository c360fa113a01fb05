/* Python frames in user stacks (pyframes.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/pysection.h"
#include "common/sort.h"
#include "finalize/pyframes.h"
#include "spool/spool.h"
#include "symbolize/pyline.h"

#define LINE_BITS	24
#define LINE_NONE	((1u << LINE_BITS) - 1)
#define IDX_UNNAMED	((1ull << 38) - 1)	/* a code object never read: marked, not named */

/* A code object or an interpreter, as spooled (names and table copied). */
struct pycode {
	uint32_t tgid;
	uint16_t version, flags;
	uint64_t code, epoch;
	uint32_t fp;
	int32_t first;
	uint16_t adaptive;
	char *name, *file;
	uint8_t *table;
	uint32_t table_len;
};

/* A label kept in a trace's symbol data. */
struct pylabel {
	uint64_t frame;
	char *label;
};

struct pyframes {
	struct pycode *c;
	size_t n, cap;
	struct pylabel *kept;
	size_t nkept, capkept;
	uint64_t merged, unnamed, bad_items;
};

struct pyframes *pyframes__new(void)
{
	return calloc(1, sizeof(struct pyframes));
}

void pyframes__free(struct pyframes *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		free(p->c[i].name);
		free(p->c[i].file);
		free(p->c[i].table);
	}
	for (size_t i = 0; i < p->nkept; i++)
		free(p->kept[i].label);
	free(p->kept);
	free(p->c);
	free(p);
}

int pyframes__restore(struct pyframes *p, uint64_t frame, const char *label)
{
	if (p->nkept == p->capkept) {
		size_t cap = p->capkept ? p->capkept * 2 : 64;
		struct pylabel *k = realloc(p->kept, cap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		p->kept = k;
		p->capkept = cap;
	}
	p->kept[p->nkept].label = strdup(label);
	if (!p->kept[p->nkept].label)
		return -ENOMEM;
	p->kept[p->nkept++].frame = frame;
	return 0;
}

static int cmp_kept(const void *a, const void *b)
{
	const struct pylabel *x = a, *y = b;

	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static const char *kept_label(const struct pyframes *p, uint64_t frame)
{
	size_t lo = 0, hi = p->nkept;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->kept[mid].frame < frame)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nkept && p->kept[lo].frame == frame ? p->kept[lo].label : NULL;
}

bool pyframes__empty(const struct pyframes *p)
{
	return !p || (!p->n && !p->nkept);
}

static char *dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
		/* A label never holds a NUL or the separator's control bytes. */
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)d[i] < 0x20)
				d[i] = ' ';
	}
	return d;
}

int pyframes__add_item(struct pyframes *p, const void *data, uint32_t len)
{
	const struct spool_pycode *s = data;
	const char *b = (const char *)(s + 1);
	struct pycode c = { 0 };
	uint64_t need;

	if (len < sizeof(*s)) {
		p->bad_items++;
		return 0;
	}
	need = sizeof(*s) + (s->flags & PYCODE_INTERP ? 0 : (uint64_t)s->name_len + s->file_len + s->table_len);
	if (need > len) {
		p->bad_items++;
		return 0;
	}
	c = (struct pycode){ .tgid = s->tgid, .version = s->version, .flags = s->flags,
			     .code = s->code, .epoch = s->epoch, .fp = s->fp, .first = s->firstlineno,
			     .adaptive = s->adaptive };
	if (s->flags & PYCODE_INTERP) {
		c.table_len = s->table_len;
	} else if (!(s->flags & PYCODE_BAD)) {
		c.name = dup_n(b, s->name_len);
		c.file = dup_n(b + s->name_len, s->file_len);
		c.table = malloc(s->table_len ? s->table_len : 1);
		if (!c.name || !c.file || !c.table) {
			free(c.name);
			free(c.file);
			free(c.table);
			return -ENOMEM;
		}
		memcpy(c.table, b + s->name_len + s->file_len, s->table_len);
		c.table_len = s->table_len;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		struct pycode *n = realloc(p->c, cap * sizeof(*n));

		if (!n) {
			free(c.name);
			free(c.file);
			free(c.table);
			return -ENOMEM;
		}
		p->c = n;
		p->cap = cap;
	}
	p->c[p->n++] = c;
	return 0;
}

/* Interpreters sort as code 0 of their process: they are looked up by tgid alone. */
static uint64_t key_code(const struct pycode *c)
{
	return c->flags & PYCODE_INTERP ? 0 : c->code;
}

static int cmp_code(const void *a, const void *b)
{
	const struct pycode *x = a, *y = b;
	uint64_t kx = key_code(x), ky = key_code(y);

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (kx != ky)
		return kx < ky ? -1 : 1;
	return x->epoch < y->epoch ? -1 : x->epoch > y->epoch;
}

void pyframes__build(struct pyframes *p)
{
	if (p && p->n)
		qsort(p->c, p->n, sizeof(*p->c), cmp_code);
	if (p && p->nkept)
		qsort(p->kept, p->nkept, sizeof(*p->kept), cmp_kept);
}

/* The entry for (tgid, code, fingerprint) of the image live at ts: the latest epoch not
 * after it.  Interpreters: code 0, any fingerprint. */
static const struct pycode *find(const struct pyframes *p, uint32_t tgid, uint64_t code, uint32_t fp,
				 uint64_t ts)
{
	size_t lo = 0, hi = p->n;
	const struct pycode *best = NULL;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct pycode *c = &p->c[mid];

		if (c->tgid < tgid || (c->tgid == tgid && key_code(c) < code))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < p->n && p->c[i].tgid == tgid && key_code(&p->c[i]) == code; i++)
		if (p->c[i].epoch <= ts && (!code || p->c[i].fp == fp))
			best = &p->c[i];
	return best;
}

/* A Python frame's value: its code object's index and its line. */
static uint64_t frame_value(const struct pyframes *p, const struct rec_hdr *h, const struct py_frame *f)
{
	const struct pycode *c = find(p, h->tgid, f->code & ~PY_CODE_ENTRY, f->fp, h->ts);
	uint32_t off, line = LINE_NONE;
	int32_t l;

	if (!c || (c->flags & (PYCODE_BAD | PYCODE_INTERP)))
		return PYFRAME_TAG | IDX_UNNAMED << LINE_BITS;
	if (c->version >= 0x030b)
		off = f->instr >= c->adaptive ? f->instr - c->adaptive : 0;
	else
		off = c->version == 0x030a ? f->instr * 2 : f->instr;
	l = (int32_t)f->instr == -1 && c->version < 0x030b ? -1
	    : pyline__find(c->version, c->table, c->table_len, c->first, off);
	if (l < 0)
		l = c->first;
	if (l >= 0 && (uint32_t)l < LINE_NONE)
		line = (uint32_t)l;
	return PYFRAME_TAG | (uint64_t)(c - p->c) << LINE_BITS | line;
}

/* The eval-loop frames of a user stack (leaf first): their indexes in ev. */
static uint32_t eval_frames(const struct pycode *in, const uint64_t *frames, uint32_t n,
			    uint32_t *ev)
{
	uint32_t k = 0;

	for (uint32_t i = 0; in && i < n; i++) {
		uint64_t a = i ? frames[i] - 1 : frames[i];

		if (a >= in->code && a < in->code + in->table_len)
			ev[k++] = i;
	}
	return k;
}

/* Python frames in groups, leaf first: each group is what one eval call ran, ending with
 * its entry frame; gs[g] is the first frame of group g, gs[ng] == m. */
static uint32_t groups(const struct py_frame *pf, uint32_t m, uint32_t *gs)
{
	uint32_t ng = 0;

	gs[0] = 0;
	for (uint32_t i = 0; i < m; i++)
		if ((pf[i].code & PY_CODE_ENTRY) || i == m - 1)
			gs[++ng] = i + 1;
	return ng;
}

void pyframes__merge(struct pyframes *p, const struct rec_hdr *h, uint32_t len, uint64_t *frames,
		     uint32_t *n, uint32_t max)
{
	uint32_t off = rec_pystack_at(h, len, true), ev[256], gs[PY_MAX_FRAMES + 1], ne, ng;
	uint32_t skip, out = 0, g_of[256];
	const struct rec_pystack *s = (const void *)((const char *)h + off);
	const struct py_frame *pf = (const void *)(s + 1);
	uint64_t merged[512];

	if (!p || !off || *n > 256)
		return;
	ne = eval_frames(find(p, h->tgid, 0, 0, h->ts), frames, *n, ev);
	ng = groups(pf, s->n, gs);
	/* Pair eval frames with groups from the root (an eval call just entered or left at the
	 * leaf has no group yet); with fewer eval frames than groups (a native walk cut short)
	 * pair from the leaf and put the rest of the groups above the native root. */
	skip = ne > ng ? ne - ng : 0;
	for (uint32_t i = 0; i < *n; i++)
		g_of[i] = ~0u;
	for (uint32_t k = skip; k < ne; k++)
		g_of[ev[k]] = k - skip;
	for (uint32_t i = 0; i < *n && out < sizeof(merged) / 8; i++) {
		uint32_t g = g_of[i];

		if (g == ~0u) {
			merged[out++] = frames[i];
			continue;
		}
		for (uint32_t j = gs[g]; j < gs[g + 1] && out < sizeof(merged) / 8; j++)
			merged[out++] = frame_value(p, h, &pf[j]);
	}
	for (uint32_t g = ne < ng ? ne : ng; g < ng; g++)
		for (uint32_t j = gs[g]; j < gs[g + 1] && out < sizeof(merged) / 8; j++)
			merged[out++] = frame_value(p, h, &pf[j]);
	if (out > max)
		out = max;
	for (uint32_t i = 0; i < out; i++)
		p->unnamed += pyframes__is(merged[i]) && (merged[i] >> LINE_BITS & IDX_UNNAMED) == IDX_UNNAMED;
	p->merged++;
	memcpy(frames, merged, out * 8);
	*n = out;
}

void pyframes__label(const struct pyframes *p, uint64_t frame, struct strbuf *out)
{
	uint64_t idx = frame >> LINE_BITS & IDX_UNNAMED;
	uint32_t line = frame & LINE_NONE;
	const struct pycode *c = p && idx < p->n ? &p->c[idx] : NULL;
	const char *kept = p ? kept_label(p, frame) : NULL;

	if (kept) {
		strbuf__addf(out, "%s", kept);
		return;
	}
	if (!c || !c->name) {
		strbuf__addf(out, "[python: code object unreadable]");
		return;
	}
	if (line == LINE_NONE)
		strbuf__addf(out, "%s (%s)", c->name, c->file);
	else
		strbuf__addf(out, "%s (%s:%u)", c->name, c->file, line);
}

void pyframes__counts(const struct pyframes *p, uint64_t *merged, uint64_t *unnamed)
{
	*merged = p ? p->merged : 0;
	*unnamed = p ? p->unnamed : 0;
}
