#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/bsearch.h"
#include "symbolize/arena.h"
#include "symbolize/perfmap.h"

struct pm_entry {
	uint64_t start, end;	/* [start, end) */
	uint64_t seq;		/* order of appearance: later wins */
	const char *name;
};

struct perfmap {
	struct pm_entry *e;
	size_t n, cap;
	bool sorted;
	uint64_t seq, bad;
	struct arena names;
};

struct perfmap *perfmap__new(void)
{
	return calloc(1, sizeof(struct perfmap));
}

void perfmap__free(struct perfmap *pm)
{
	if (!pm)
		return;
	free(pm->e);
	arena__free(&pm->names);
	free(pm);
}

/* A hex number of at most 16 digits, optionally 0x-prefixed, at *p; *p moves past it. */
static bool hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;

	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; s < end && digits <= 16; s++, digits++) {
		char c = *s;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			break;
		v = v << 4 | (uint64_t)d;
	}
	if (!digits || digits > 16)
		return false;
	*p = s;
	*out = v;
	return true;
}

static int add_line(struct perfmap *pm, const char *s, const char *end)
{
	uint64_t start, size;
	const char *name;
	size_t len;

	if (!hex(&s, end, &start) || s == end || *s != ' ')
		goto bad;
	s++;
	if (!hex(&s, end, &size) || s == end || *s != ' ' || !size || start + size < start)
		goto bad;
	name = s + 1;
	len = (size_t)(end - name);
	while (len && (name[len - 1] == '\r' || name[len - 1] == ' '))
		len--;
	if (!len || memchr(name, 0, len))
		goto bad;
	if (len > PERFMAP_NAME_MAX)
		len = PERFMAP_NAME_MAX;
	if (pm->n == pm->cap) {
		size_t cap = pm->cap ? pm->cap * 2 : 256;
		struct pm_entry *e = realloc(pm->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		pm->e = e;
		pm->cap = cap;
	}
	pm->e[pm->n].name = arena__strndup(&pm->names, name, len);
	if (!pm->e[pm->n].name)
		return -ENOMEM;
	pm->e[pm->n].start = start;
	pm->e[pm->n].end = start + size;
	pm->e[pm->n].seq = pm->seq++;
	pm->n++;
	pm->sorted = false;
	return 0;
bad:
	pm->bad++;
	return 0;
}

int perfmap__add(struct perfmap *pm, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	int err = 0;

	while (!err && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if (le > p)
			err = add_line(pm, p, le);
		p = nl ? nl + 1 : end;
	}
	return err;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct pm_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

const char *perfmap__lookup(struct perfmap *pm, uint64_t addr)
{
	size_t lo, best = SIZE_MAX;

	if (!pm->n)
		return NULL;
	if (!pm->sorted) {
		qsort(pm->e, pm->n, sizeof(*pm->e), entry_cmp);
		pm->sorted = true;
	}
	/* The last entry starting at or below addr, then the newest of those before it
	 * that still covers addr (entries rarely overlap: a short scan). */
	lo = BSEARCH_FIRST((size_t)0, pm->n, i, pm->e[i].start <= addr);
	for (size_t i = lo, k = 0; i-- > 0 && k < 64; k++)
		if (addr < pm->e[i].end && (best == SIZE_MAX || pm->e[i].seq > pm->e[best].seq))
			best = i;
	return best == SIZE_MAX ? NULL : pm->e[best].name;
}

void perfmap__counts(const struct perfmap *pm, uint64_t *entries, uint64_t *bad)
{
	*entries = pm->n;
	*bad = pm->bad;
}
