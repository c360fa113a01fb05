#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/utf8.h"
#include "server/flame_svg.h"
#include "trace/schema.h"

#define IMAGE_WIDTH 1200
#define FRAME_HEIGHT 16
#define FONT_SIZE 12
#define XPAD 10
#define YPAD_TOP (FONT_SIZE * 3)
#define YPAD_BOTTOM (FONT_SIZE * 2 + 10)
#define MIN_WIDTH 0.1	/* px: narrower frames (and their children) are left out */

struct node {
	const char *name;
	uint32_t len, depth;
	uint64_t x, value;	/* in samples */
};

struct buf {
	struct json j;		/* used as a plain byte buffer */
};

static void put(struct buf *b, const char *s)
{
	json__bytes(&b->j, s, strlen(s));
}

static void putf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	json__bytes(&b->j, tmp, (size_t)(n < (int)sizeof(tmp) ? n : (int)sizeof(tmp) - 1));
}

/* Text as XML: markup characters escaped, control characters and invalid UTF-8 replaced. */
static void put_xml(struct buf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		size_t l;

		switch (u[i]) {
		case '&': put(b, "&amp;"); i++; continue;
		case '<': put(b, "&lt;"); i++; continue;
		case '>': put(b, "&gt;"); i++; continue;
		case '"': put(b, "&quot;"); i++; continue;
		case '\'': put(b, "&apos;"); i++; continue;
		default: break;
		}
		if (u[i] < 0x20) {
			put(b, " ");
			i++;
			continue;
		}
		l = utf8__seq_len(u + i, n - i);
		if (!l) {
			put(b, "\xef\xbf\xbd");
			i++;
			continue;
		}
		json__bytes(&b->j, s + i, l);
		i += l;
	}
}

static int cmp_frame(const char *a, uint32_t al, const char *b, uint32_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);

	return c ? c : (al > bl) - (al < bl);
}

static int cmp_stack(const void *x, const void *y)
{
	const struct flame_stack *a = x, *b = y;

	for (uint32_t i = 0; i < a->nframes && i < b->nframes; i++) {
		int c = cmp_frame(a->frames[i], a->lens[i], b->frames[i], b->lens[i]);

		if (c)
			return c;
	}
	return (a->nframes > b->nframes) - (a->nframes < b->nframes);
}

/* Warm colours from a hash of the name (flamegraph.pl's "hot" palette); the [user] and
 * [kernel] markers get neutral ones so the split stands out. */
static void colour(const char *name, uint32_t len, char *out, size_t size)
{
	uint32_t h = 2166136261u;
	double v1, v2, v3;

	if (stack_mark__is(name, len, STACK_MARK_USER)) {
		snprintf(out, size, "rgb(176,196,222)");
		return;
	}
	if (stack_mark__is(name, len, STACK_MARK_KERNEL)) {
		snprintf(out, size, "rgb(200,200,200)");
		return;
	}
	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	v1 = (double)(h & 0xff) / 255.0;
	v2 = (double)((h >> 8) & 0xff) / 255.0;
	v3 = (double)((h >> 16) & 0xff) / 255.0;
	snprintf(out, size, "rgb(%d,%d,%d)", 205 + (int)(50 * v3), (int)(230 * v1), (int)(55 * v2));
}

static const char script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"var svg, details, unzoombtn, matchedtxt, W, XP = " "10" ", CW = 0.59 * " "12" ";\n"
	"var frames = [], zoomed = null, searching = null;\n"
	"function init(evt) {\n"
	"  svg = document.documentElement;\n"
	"  details = document.getElementById('details').firstChild;\n"
	"  unzoombtn = document.getElementById('unzoom');\n"
	"  matchedtxt = document.getElementById('matched');\n"
	"  W = +svg.getAttribute('width') - 2 * XP;\n"
	"  frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
	"  layout(0, +frames[0].getAttribute('data-w'), 0);\n"
	"}\n"
	"function fr(g) { return { x: +g.getAttribute('data-x'), w: +g.getAttribute('data-w'),"
	" d: +g.getAttribute('data-d') }; }\n"
	"function label(g, px) {\n"
	"  var t = g.querySelector('text'), n = g.getAttribute('data-n'), m = Math.floor(px / CW);\n"
	"  t.textContent = m < 3 ? '' : (n.length <= m ? n : n.substring(0, m - 2) + '..');\n"
	"}\n"
	"function layout(zx, zw, zd) {\n"
	"  frames.forEach(function (g) {\n"
	"    var f = fr(g), r = g.querySelector('rect'), t = g.querySelector('text'), x, w;\n"
	"    if (f.d < zd) {\n"
	"      if (f.x <= zx && f.x + f.w >= zx + zw) { x = 0; w = W; g.classList.add('p'); }\n"
	"      else { g.style.display = 'none'; return; }\n"
	"    } else if (f.x >= zx && f.x + f.w <= zx + zw) {\n"
	"      x = (f.x - zx) / zw * W; w = f.w / zw * W; g.classList.remove('p');\n"
	"    } else { g.style.display = 'none'; return; }\n"
	"    if (w < 0.1) { g.style.display = 'none'; return; }\n"
	"    g.style.display = '';\n"
	"    r.setAttribute('x', (x + XP).toFixed(2)); r.setAttribute('width', w.toFixed(2));\n"
	"    t.setAttribute('x', (x + XP + 3).toFixed(2)); label(g, w - 3);\n"
	"  });\n"
	"}\n"
	"function zoom(g) { var f = fr(g); zoomed = g; unzoombtn.classList.remove('hide');"
	" layout(f.x, f.w, f.d); }\n"
	"function unzoom() { zoomed = null; unzoombtn.classList.add('hide');"
	" layout(0, +frames[0].getAttribute('data-w'), 0); }\n"
	"function find(n) { while (n && n !== svg) { if (n.classList && n.classList.contains('f'))"
	" return n; n = n.parentNode; } return null; }\n"
	"function search(term) {\n"
	"  var re; try { re = new RegExp(term); } catch (e) { return; }\n"
	"  var total = +frames[0].getAttribute('data-w'), spans = [];\n"
	"  frames.forEach(function (g) {\n"
	"    var r = g.querySelector('rect');\n"
	"    if (!r.hasAttribute('data-fill')) r.setAttribute('data-fill', r.getAttribute('fill'));\n"
	"    if (re.test(g.getAttribute('data-n'))) { r.setAttribute('fill', 'rgb(230,0,230)');"
	" var f = fr(g); spans.push([f.x, f.x + f.w]); }\n"
	"    else r.setAttribute('fill', r.getAttribute('data-fill'));\n"
	"  });\n"
	"  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
	"  var covered = 0, end = -1;\n"
	"  spans.forEach(function (s) { if (s[0] >= end) { covered += s[1] - s[0]; end = s[1]; }"
	" else if (s[1] > end) { covered += s[1] - end; end = s[1]; } });\n"
	"  matchedtxt.textContent = spans.length ? 'Matched: ' + (100 * covered / total).toFixed(1)"
	" + '%' : '';\n"
	"  searching = term;\n"
	"}\n"
	"function prompt_search() { var t = prompt('Enter a search term (regexp allowed)', searching"
	" || ''); if (t !== null) search(t); }\n"
	"window.addEventListener('click', function (e) {\n"
	"  var g = find(e.target);\n"
	"  if (g) zoom(g); else if (e.target.id === 'unzoom') unzoom();"
	" else if (e.target.id === 'search') prompt_search();\n"
	"});\n"
	"window.addEventListener('mouseover', function (e) { var g = find(e.target);"
	" if (g) details.nodeValue = g.querySelector('title').textContent; });\n"
	"window.addEventListener('mouseout', function (e) { if (find(e.target)) details.nodeValue = ' '; });\n"
	"window.addEventListener('keydown', function (e) { if (e.keyCode === 114 || (e.ctrlKey &&"
	" e.keyCode === 70)) { e.preventDefault(); prompt_search(); } });\n"
	"]]></script>\n";

/* Merge sorted stacks into frames: a stack shares its prefix with its predecessor, whose
 * frames grow; the rest start at the running sample offset (which is their x). */
static int merge_stacks(const struct flame_stack *st, size_t n, size_t maxdepth, struct node *root,
			struct node **nodes, size_t *nn)
{
	size_t cap = 0, *path = calloc(maxdepth + 1, sizeof(*path));

	if (!path)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint32_t k = 0;

		if (i)
			while (k < st[i].nframes && k < st[i - 1].nframes &&
			       !cmp_frame(st[i].frames[k], st[i].lens[k], st[i - 1].frames[k], st[i - 1].lens[k]))
				k++;
		for (uint32_t d = 0; d < st[i].nframes; d++) {
			if (d < k) {
				(*nodes)[path[d]].value += st[i].count;
				continue;
			}
			if (*nn == cap) {
				struct node *p = realloc(*nodes, (cap = cap ? cap * 2 : 256) * sizeof(*p));

				if (!p) {
					free(path);
					return -ENOMEM;
				}
				*nodes = p;
			}
			(*nodes)[*nn] = (struct node){ st[i].frames[d], st[i].lens[d], d + 1, root->value,
						       st[i].count };
			path[d] = (*nn)++;
		}
		root->value += st[i].count;
	}
	free(path);
	return 0;
}

/* The document's head: size, style, script, background, title and the text slots. */
static void put_head(struct buf *b, const char *title, int height)
{
	/* The SVG's own height comes first: the web UI sizes its frame from it. */
	putf(b, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" onload=\"init(evt)\" "
		"viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n",
	     IMAGE_WIDTH, height, IMAGE_WIDTH, height);
	put(b, "<style type=\"text/css\">text { font-family: monospace; font-size: 12px; fill: rgb(0,0,0); }"
	       " #title { text-anchor: middle; font-size: 17px; } #search, #matched { text-anchor: end; }"
	       " #unzoom, #search { cursor: pointer; } .hide { display: none; }"
	       " g.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; cursor: pointer; }"
	       " g.p rect { opacity: 0.5; }</style>\n");
	put(b, script);
	putf(b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"rgb(255,255,255)\"/>\n",
	     IMAGE_WIDTH, height);
	putf(b, "<text id=\"title\" x=\"%d\" y=\"24\">", IMAGE_WIDTH / 2);
	put_xml(b, title, strlen(title));
	put(b, "</text>\n");
	putf(b, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", XPAD, height - 17);
	putf(b, "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n", XPAD);
	putf(b, "<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n", IMAGE_WIDTH - XPAD);
	putf(b, "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n", IMAGE_WIDTH - XPAD, height - 17);
}

/* One frame: a group with its data, tooltip, box and as much of its name as fits. */
static void put_frame(struct buf *b, const struct node *f, double scale, int height, uint64_t total,
		      const char *count_name)
{
	double w = (double)f->value * scale, x = XPAD + (double)f->x * scale;
	int y = height - YPAD_BOTTOM - (int)(f->depth + 1) * FRAME_HEIGHT;
	size_t maxc = (size_t)((w - 3) / (0.59 * FONT_SIZE));
	char fill[32];

	if (w < MIN_WIDTH)
		return;
	colour(f->name, f->len, fill, sizeof(fill));
	putf(b, "<g class=\"f\" data-x=\"%llu\" data-w=\"%llu\" data-d=\"%u\" data-n=\"",
	     (unsigned long long)f->x, (unsigned long long)f->value, f->depth);
	put_xml(b, f->name, f->len);
	put(b, "\"><title>");
	put_xml(b, f->name, f->len);
	putf(b, " (%llu %s, %.2f%%)</title>", (unsigned long long)f->value, count_name,
	     total ? 100.0 * (double)f->value / (double)total : 0.0);
	putf(b, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\" ry=\"2\"/>",
	     x, y, w, FRAME_HEIGHT - 1, fill);
	putf(b, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + 10.5);
	if (maxc >= 3) {
		if (f->len <= maxc) {
			put_xml(b, f->name, f->len);
		} else {
			/* Cut on a character boundary, then mark the cut. */
			size_t cut = maxc - 2;

			while (cut > 0 && ((unsigned char)f->name[cut] & 0xc0) == 0x80)
				cut--;
			put_xml(b, f->name, cut);
			put(b, "..");
		}
	}
	put(b, "</text></g>\n");
}

char *flame__svg(const char *title, const char *count_name, struct flame_stack *st, size_t n,
		 size_t *len)
{
	struct node *nodes = NULL, root = { "all", 3, 0, 0, 0 };
	size_t nn = 0, maxdepth = 0;
	uint64_t total = 0;
	struct buf b;
	double scale;
	int height;

	qsort(st, n, sizeof(*st), cmp_stack);
	for (size_t i = 0; i < n; i++) {
		maxdepth = st[i].nframes > maxdepth ? st[i].nframes : maxdepth;
		total += st[i].count;
	}
	if (merge_stacks(st, n, maxdepth, &root, &nodes, &nn)) {
		free(nodes);
		return NULL;
	}
	height = (int)(maxdepth + 1) * FRAME_HEIGHT + YPAD_TOP + YPAD_BOTTOM;
	scale = total ? (double)(IMAGE_WIDTH - 2 * XPAD) / (double)total : 0;

	json__init(&b.j);
	put_head(&b, title, height);
	for (size_t i = 0; i <= nn; i++)
		put_frame(&b, i ? &nodes[i - 1] : &root, scale, height, total, count_name);
	put(&b, "</svg>\n");
	free(nodes);
	return json__steal(&b.j, len);
}
