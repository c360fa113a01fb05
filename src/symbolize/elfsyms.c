#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/elfsyms.h"

struct esym {
	uint64_t value, size;
	const char *name;
	uint32_t idx;		/* index in libdwfl's symbol numbering: scan order */
	uint8_t bind;		/* dwfl's preference: global 3, weak 2, local 1, other 0 */
	bool local_pass;	/* before first_global: only searched when no global fits */
};

struct elfsyms {
	Dwfl_Module *mod;
	struct esym *syms;	/* by value */
	uint64_t *max_end;	/* max (value + size) of syms[0..i] */
	size_t n;
	char *names;		/* names' storage when decoded from the cache, else libdwfl's */
};

/* Symbols that contain one address are few (a function and its aliases); more, or a
 * longer walk past big covering symbols, goes to libdwfl rather than a bigger buffer. */
#define ELFSYMS_MAX_HITS 32
#define ELFSYMS_MAX_WALK 256

static int bind_value(const GElf_Sym *s)
{
	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

static int esym_cmp(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The symbols libdwfl's search considers: named, defined, not section/file/TLS. */
static bool eligible(const char *name, const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info);

	return name && *name && s->st_shndx != SHN_UNDEF && type != STT_SECTION &&
	       type != STT_FILE && type != STT_TLS;
}

static void fill_max_end(struct elfsyms *t)
{
	for (size_t i = 0; i < t->n; i++) {
		uint64_t end = t->syms[i].value + t->syms[i].size;

		t->max_end[i] = i && t->max_end[i - 1] > end ? t->max_end[i - 1] : end;
	}
}

struct elfsyms *elfsyms__new(Dwfl_Module *mod)
{
	struct elfsyms *t = calloc(1, sizeof(*t));
	int count = dwfl_module_getsymtab(mod);
	int first_global = dwfl_module_getsymtab_first_global(mod);

	if (!t)
		return NULL;
	t->mod = mod;
	if (count <= 1 || first_global < 0)
		return t;
	t->syms = malloc(count * sizeof(*t->syms));
	t->max_end = malloc(count * sizeof(*t->max_end));
	if (!t->syms || !t->max_end) {
		elfsyms__free(t);
		return NULL;
	}
	/* Index 0 is the null symbol (or, for a phdr-only dynsym, skipped by libdwfl too). */
	for (int i = 1; i < count; i++) {
		GElf_Sym s;
		GElf_Addr value;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, i, &s, &value, &shndx, NULL, NULL);

		if (!eligible(name, &s))
			continue;
		t->syms[t->n++] = (struct esym){
			.value = value,
			.size = s.st_size,
			.name = name,
			.idx = i,
			.bind = bind_value(&s),
			.local_pass = first_global > 0 && i < first_global,
		};
	}
	qsort(t->syms, t->n, sizeof(*t->syms), esym_cmp);
	fill_max_end(t);
	return t;
}

/* Cache bytes: u64 count, then per symbol {u64 value, u64 size, u32 idx, u32 name length,
 * u8 bind, u8 local_pass}, then the names, each NUL-terminated, in table order. */
#define ESYM_REC (8 + 8 + 4 + 4 + 1 + 1)

int elfsyms__encode(const struct elfsyms *t, void **buf, size_t *len)
{
	size_t names = 0, off = 8;
	uint64_t n = t->n;
	char *b;

	for (size_t i = 0; i < t->n; i++)
		names += strlen(t->syms[i].name) + 1;
	*len = 8 + t->n * ESYM_REC + names;
	b = malloc(*len);
	if (!b)
		return -ENOMEM;
	memcpy(b, &n, 8);
	for (size_t i = 0; i < t->n; i++, off += ESYM_REC) {
		const struct esym *e = &t->syms[i];
		uint32_t nl = (uint32_t)strlen(e->name);

		memcpy(b + off, &e->value, 8);
		memcpy(b + off + 8, &e->size, 8);
		memcpy(b + off + 16, &e->idx, 4);
		memcpy(b + off + 20, &nl, 4);
		b[off + 24] = (char)e->bind;
		b[off + 25] = e->local_pass;
	}
	for (size_t i = 0; i < t->n; i++) {
		size_t l = strlen(t->syms[i].name) + 1;

		memcpy(b + off, t->syms[i].name, l);
		off += l;
	}
	*buf = b;
	return 0;
}

static struct elfsyms *decode_fail(struct elfsyms *t)
{
	elfsyms__free(t);
	return NULL;
}

struct elfsyms *elfsyms__decode(Dwfl_Module *mod, const void *buf, size_t len)
{
	const char *b = buf, *names;
	struct elfsyms *t;
	size_t off = 8, nlen;
	uint64_t n;

	if (len < 8)
		return NULL;
	memcpy(&n, b, 8);
	if (n > (len - 8) / ESYM_REC)
		return NULL;
	names = b + 8 + n * ESYM_REC;
	nlen = len - 8 - n * ESYM_REC;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->mod = mod;
	t->syms = malloc((n ? n : 1) * sizeof(*t->syms));
	t->max_end = malloc((n ? n : 1) * sizeof(*t->max_end));
	t->names = malloc(nlen ? nlen : 1);
	if (!t->syms || !t->max_end || !t->names)
		return decode_fail(t);
	memcpy(t->names, names, nlen);
	for (size_t i = 0, pos = 0; i < n; i++, off += ESYM_REC) {
		struct esym *e = &t->syms[i];
		uint32_t nl;

		memcpy(&e->value, b + off, 8);
		memcpy(&e->size, b + off + 8, 8);
		memcpy(&e->idx, b + off + 16, 4);
		memcpy(&nl, b + off + 20, 4);
		e->bind = (uint8_t)b[off + 24];
		e->local_pass = b[off + 25];
		/* Every name inside the blob and terminated where its length says; the
		 * order the table's search relies on. */
		if (nl >= nlen - pos || t->names[pos + nl] || memchr(t->names + pos, 0, nl) ||
		    (i && esym_cmp(&t->syms[i - 1], e) >= 0))
			return decode_fail(t);
		e->name = t->names + pos;
		pos += nl + 1;
		t->n++;
	}
	fill_max_end(t);
	return t;
}

void elfsyms__free(struct elfsyms *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->max_end);
	free(t->names);
	free(t);
}

size_t elfsyms__count(const struct elfsyms *t)
{
	return t->n;
}

/* Number of symbols with value <= addr. */
static size_t upper_bound(const struct elfsyms *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* libdwfl's choice among sized symbols containing the address, in its scan order. */
static const struct esym *pick(const struct esym *const *hits, int n, bool local_pass)
{
	const struct esym *best = NULL;

	for (int i = 0; i < n; i++) {
		const struct esym *s = hits[i];

		if (s->local_pass != local_pass)
			continue;
		if (!best || best->value < s->value || best->bind < s->bind)
			best = s;
		else if (best->value == s->value &&
			 ((best->size > s->size && best->bind <= s->bind) ||
			  (best->size >= s->size && best->bind < s->bind)))
			best = s;
	}
	return best;
}

static int hit_cmp(const void *a, const void *b)
{
	const struct esym *x = *(const struct esym *const *)a, *y = *(const struct esym *const *)b;

	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Whether a global sizeless symbol sits exactly at addr: libdwfl then skips the local
 * symbols, with an outcome that depends on section membership. */
static bool global_label_at(const struct elfsyms *t, size_t below, uint64_t addr)
{
	for (size_t j = below; j-- > 0 && t->syms[j].value == addr;)
		if (!t->syms[j].size && !t->syms[j].local_pass)
			return true;
	return false;
}

static const char *slow(const struct elfsyms *t, Dwarf_Addr addr)
{
	GElf_Off off;
	GElf_Sym sym;

	return dwfl_module_addrinfo(t->mod, addr, &off, &sym, NULL, NULL, NULL);
}

const char *elfsyms__name(const struct elfsyms *t, Dwarf_Addr addr)
{
	const struct esym *hits[ELFSYMS_MAX_HITS], *best;
	size_t below = upper_bound(t, addr);
	int nhits = 0;

	if (!below)
		return NULL;
	/* Walk down while some symbol at or below j still reaches past addr. */
	for (size_t j = below, walked = 0; j-- > 0 && t->max_end[j] > addr; walked++) {
		const struct esym *s = &t->syms[j];

		if (walked == ELFSYMS_MAX_WALK)
			return slow(t, addr);
		if (!s->size || s->value + s->size <= addr)
			continue;
		if (nhits == ELFSYMS_MAX_HITS)
			return slow(t, addr);
		hits[nhits++] = s;
	}
	if (!nhits) {
		/* Only a sizeless label can name addr then, when nothing reaches past the
		 * highest symbol below it; otherwise libdwfl finds nothing either. */
		if (t->max_end[below - 1] > t->syms[below - 1].value)
			return NULL;
		return slow(t, addr);
	}
	qsort(hits, nhits, sizeof(hits[0]), hit_cmp);
	best = pick(hits, nhits, false);
	if (best)
		return best->name;
	if (global_label_at(t, below, addr))
		return slow(t, addr);
	best = pick(hits, nhits, true);
	return best ? best->name : NULL;
}
