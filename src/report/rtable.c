#include <stdlib.h>
#include <string.h>

#include "report/rtable.h"

void rtable__init(struct rtable *t, const char *key, const char *title, const struct rcol *cols,
		  int ncols)
{
	memset(t, 0, sizeof(*t));
	t->key = key;
	t->title = title;
	t->cols = cols;
	t->ncols = ncols;
	t->col = ncols;
}

void rtable__free(struct rtable *t)
{
	for (size_t i = 0; i < t->rows * t->ncols; i++)
		free(t->cells[i].s);
	free(t->cells);
	t->cells = NULL;
	t->rows = t->cap = 0;
}

void rtable__row(struct rtable *t)
{
	if (t->rows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 32;
		struct rcell *c = realloc(t->cells, cap * t->ncols * sizeof(*c));

		if (!c) {
			t->oom = true;
			t->col = t->ncols;
			return;
		}
		t->cells = c;
		t->cap = cap;
	}
	memset(&t->cells[t->rows * t->ncols], 0, t->ncols * sizeof(*t->cells));
	t->rows++;
	t->col = 0;
}

static struct rcell *next(struct rtable *t)
{
	if (t->col >= t->ncols)
		return NULL;	/* no row (out of memory) or too many cells */
	return &t->cells[(t->rows - 1) * t->ncols + t->col++];
}

void rtable__strn(struct rtable *t, const char *s, size_t n)
{
	struct rcell *c = next(t);

	if (c && !(c->s = strndup(s, n)))
		t->oom = c->null = true;
}

void rtable__str(struct rtable *t, const char *s)
{
	rtable__strn(t, s, strlen(s));
}

void rtable__int(struct rtable *t, int64_t v)
{
	struct rcell *c = next(t);

	if (c)
		c->v = v;
}

void rtable__pct(struct rtable *t, double fraction)
{
	struct rcell *c = next(t);

	if (c)
		c->d = fraction;
}

void rtable__ratio(struct rtable *t, double ratio)
{
	rtable__pct(t, ratio);
}

void rtable__null(struct rtable *t)
{
	struct rcell *c = next(t);

	if (c)
		c->null = true;
}

void rtable__mark(struct rtable *t)
{
	if (t->rows && t->col > 0 && !t->oom)
		t->cells[(t->rows - 1) * t->ncols + t->col - 1].mark = true;
}

void rtable__fmt_ns(char *buf, size_t size, int64_t ns)
{
	double v = (double)ns;

	if (ns < 1000)
		snprintf(buf, size, "%lldns", (long long)ns);
	else if (ns < 1000000)
		snprintf(buf, size, v < 1e4 ? "%.2fus" : v < 1e5 ? "%.1fus" : "%.0fus", v / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, v < 1e7 ? "%.2fms" : v < 1e8 ? "%.1fms" : "%.0fms", v / 1e6);
	else
		snprintf(buf, size, v < 1e10 ? "%.2fs" : v < 1e11 ? "%.1fs" : "%.0fs", v / 1e9);
}

void rtable__fmt_bytes(char *buf, size_t size, int64_t bytes)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (!u)
		snprintf(buf, size, "%lldB", (long long)bytes);
	else
		snprintf(buf, size, v < 10 ? "%.2f%s" : v < 100 ? "%.1f%s" : "%.0f%s", v, unit[u]);
}

static void cell_text(const struct rtable *t, size_t r, int k, char *buf, size_t size)
{
	const struct rcell *c = &t->cells[r * t->ncols + k];

	if (c->null) {
		snprintf(buf, size, c->mark ? "-*" : "-");
		return;
	}
	switch (t->cols[k].kind) {
	case RC_TEXT: case RC_JSON: snprintf(buf, size, "%s", c->s ? c->s : ""); break;
	case RC_INT: snprintf(buf, size, "%lld", (long long)c->v); break;
	case RC_NS: rtable__fmt_ns(buf, size, c->v); break;
	case RC_BYTES: rtable__fmt_bytes(buf, size, c->v); break;
	case RC_PCT: snprintf(buf, size, "%.2f%%", c->d * 100); break;
	case RC_DNS:
		buf[0] = c->v < 0 ? '-' : '+';
		if (c->v)
			rtable__fmt_ns(buf + 1, size - 1, c->v < 0 ? -c->v : c->v);
		else
			snprintf(buf, size, "0");
		break;
	case RC_RATIO: snprintf(buf, size, c->d < 100 ? "%.2fx" : "%.0fx", c->d); break;
	}
	if (c->mark && strlen(buf) + 1 < size)
		strcat(buf, "*");
}

static bool row_marked(const struct rtable *t, size_t r)
{
	for (int k = 0; k < t->ncols; k++)
		if (t->cells[r * t->ncols + k].mark)
			return true;
	return false;
}

/* Columns of UTF-8 text: continuation bytes take none. */
static int cols_of(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* Print s in w columns (cut on a character boundary), padded on the left or right. */
static void put(FILE *out, const char *s, int w, bool right, bool last)
{
	int n = cols_of(s), i = 0;

	if (n > w) {
		for (const char *p = s; *p; p++) {
			if (((unsigned char)*p & 0xc0) != 0x80 && ++i > w - 1)
				break;
			fputc(*p, out);
		}
		fputs("+", out);	/* cut */
		return;
	}
	if (right)
		fprintf(out, "%*s", w - n, "");
	fputs(s, out);
	if (!right && !last)
		fprintf(out, "%*s", w - n, "");
}

void rtable__print(const struct rtable *t, FILE *out, int width)
{
	int w[32] = { 0 }, total = 0, cut = -1;
	char buf[4096];

	fprintf(out, "\n%s\n", t->title);
	if (!t->rows) {
		fputs("  (none)\n", out);
		return;
	}
	for (int k = 0; k < t->ncols && k < 32; k++) {
		if (!t->cols[k].name)
			continue;
		w[k] = cols_of(t->cols[k].name);
		for (size_t r = 0; r < t->rows; r++) {
			cell_text(t, r, k, buf, sizeof(buf));
			w[k] = cols_of(buf) > w[k] ? cols_of(buf) : w[k];
		}
		total += w[k] + 2;
		if (t->cols[k].kind == RC_TEXT && (cut < 0 || w[k] > w[cut]))
			cut = k;
	}
	/* Leading two spaces, two between columns. */
	if (total > width && cut >= 0 && !t->no_cut)
		w[cut] = w[cut] - (total - width) > 8 ? w[cut] - (total - width) : 8;
	for (size_t r = 0; r <= t->rows; r++) {
		fputs("  ", out);
		for (int k = 0; k < t->ncols && k < 32; k++) {
			bool right = t->cols[k].kind != RC_TEXT, last = k + 1 == t->ncols;

			for (int x = k + 1; x < t->ncols && !t->cols[x].name; x++)
				last = x + 1 == t->ncols;
			if (!t->cols[k].name)
				continue;

			if (r == 0)
				snprintf(buf, sizeof(buf), "%s", t->cols[k].name);
			else
				cell_text(t, r - 1, k, buf, sizeof(buf));
			put(out, buf, w[k], right, last);
			fputs(last ? "\n" : "  ", out);
		}
	}
	if (t->left_out)
		fprintf(out, "  ... %llu more\n", (unsigned long long)t->left_out);
	for (size_t r = 0; t->note && r < t->rows; r++)
		if (row_marked(t, r)) {
			fprintf(out, "  * %s\n", t->note);
			break;
		}
}

void rtable__json(const struct rtable *t, struct json *j)
{
	json__key(j, t->key);
	json__arr_begin(j);
	for (size_t r = 0; r < t->rows; r++) {
		json__obj_begin(j);
		for (int k = 0; k < t->ncols; k++) {
			const struct rcell *c = &t->cells[r * t->ncols + k];

			if (t->cols[k].json && !*t->cols[k].json)
				continue;
			json__key(j, t->cols[k].json ? t->cols[k].json : t->cols[k].name);
			if (c->null)
				json__null(j);
			else if (t->cols[k].kind == RC_TEXT)
				json__str(j, c->s ? c->s : "");
			else if (t->cols[k].kind == RC_JSON)
				c->s ? json__raw(j, c->s, strlen(c->s)) : json__null(j);
			else if (t->cols[k].kind == RC_PCT || t->cols[k].kind == RC_RATIO)
				json__double(j, c->d);
			else
				json__i64(j, c->v);
		}
		if (row_marked(t, r)) {
			json__key(j, "incomplete");
			json__bool(j, true);
		}
		json__obj_end(j);
	}
	json__arr_end(j);
}
