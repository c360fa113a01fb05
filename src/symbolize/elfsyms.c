#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/bsearch.h"
#include "symbolize/elfsyms.h"

/* Also the cache's record (elfsyms__encode), with the name as an offset. */
struct esym {
	uint64_t value, size;
	union {
		const char *name;
		uint64_t name_off;	/* in the cache's bytes: into their names */
	};
	uint32_t idx;		/* index in libdwfl's symbol numbering: scan order */
	uint8_t bind;		/* dwfl's preference: global 3, weak 2, local 1, other 0 */
	bool local_pass;	/* before first_global: only searched when no global fits */
};

_Static_assert(sizeof(struct esym) == 32, "struct esym is the cache's record as it is");

struct elfsyms {
	Dwfl_Module *mod;
	struct esym *syms;	/* by value */
	uint64_t *max_end;	/* max (value + size) of syms[0..i] */
	size_t n;
	/* Adopted: the cache bytes syms, max_end and names lie in, read only (names are
	 * offsets into names_base); map_len > 0: an mmap of the cache file, else malloc'd. */
	const char *names_base;
	void *cache;
	size_t map_len;
};

static const char *esym_name(const struct elfsyms *t, const struct esym *e)
{
	return t->names_base ? t->names_base + e->name_off : e->name;
}

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

/* Cache bytes: u64 count n, u64 names' length, n struct esym (name_off set, padding
 * zero), n max_end, then the names, each NUL-terminated.  Read back in place: the arrays
 * are used where they lie, so a table costs one read of the file and one pass over it. */
#define CACHE_HDR 16

int elfsyms__encode(const struct elfsyms *t, void **buf, size_t *len)
{
	size_t names = 0, arrays = CACHE_HDR + t->n * (sizeof(struct esym) + 8), off = 0;
	uint64_t n = t->n, nlen;
	char *b;

	for (size_t i = 0; i < t->n; i++)
		names += strlen(esym_name(t, &t->syms[i])) + 1;
	nlen = names;
	*len = arrays + names;
	b = calloc(1, *len);
	if (!b)
		return -ENOMEM;
	memcpy(b, &n, 8);
	memcpy(b + 8, &nlen, 8);
	for (size_t i = 0; i < t->n; i++) {
		const struct esym *e = &t->syms[i];
		const char *name = esym_name(t, e);
		size_t l = strlen(name) + 1;
		struct esym r;

		memset(&r, 0, sizeof(r));
		r.value = e->value;
		r.size = e->size;
		r.name_off = off;
		r.idx = e->idx;
		r.bind = e->bind;
		r.local_pass = e->local_pass;
		memcpy(b + CACHE_HDR + i * sizeof(r), &r, sizeof(r));
		memcpy(b + arrays + off, name, l);
		off += l;
	}
	memcpy(b + CACHE_HDR + t->n * sizeof(struct esym), t->max_end, t->n * 8);
	*buf = b;
	return 0;
}

/* A table over bytes laid out by elfsyms__encode, used where they lie and never written:
 * names stay offsets (esym_name), so a cache file's pages are mapped, not copied. */
static struct elfsyms *adopt(Dwfl_Module *mod, const void *buf, size_t len)
{
	struct elfsyms *t;
	const struct esym *syms;
	uint64_t n, nlen;

	if (len < CACHE_HDR || (uintptr_t)buf % 8)
		return NULL;
	memcpy(&n, buf, 8);
	memcpy(&nlen, (const char *)buf + 8, 8);
	if (n > (len - CACHE_HDR) / (sizeof(struct esym) + 8) ||
	    nlen != len - CACHE_HDR - n * (sizeof(struct esym) + 8))
		return NULL;
	syms = (const struct esym *)((const char *)buf + CACHE_HDR);
	/* A NUL at the end ends every name that starts inside. */
	if (n && (!nlen || ((const char *)buf)[len - 1]))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		uint8_t local_pass;

		/* Read as a byte: a bool holding anything but 0 or 1 is undefined. */
		memcpy(&local_pass, &syms[i].local_pass, 1);
		if (syms[i].name_off >= nlen || syms[i].bind > 3 || local_pass > 1)
			return NULL;
		/* The order the table's search relies on. */
		if (i && esym_cmp(&syms[i - 1], &syms[i]) >= 0)
			return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->mod = mod;
	t->syms = (struct esym *)syms;
	t->max_end = (uint64_t *)(syms + n);
	t->n = n;
	t->names_base = (const char *)buf + len - nlen;
	return t;
}

struct elfsyms *elfsyms__adopt(Dwfl_Module *mod, void *buf, size_t len)
{
	return elfsyms__adopt_at(mod, buf, len, 0, len, false);
}

struct elfsyms *elfsyms__adopt_at(Dwfl_Module *mod, void *base, size_t base_len, size_t off,
				  size_t len, bool mapped)
{
	struct elfsyms *t;

	if (off > base_len || len > base_len - off)
		return NULL;
	t = adopt(mod, (char *)base + off, len);
	if (t) {
		t->cache = base;
		t->map_len = mapped ? base_len : 0;
	}
	return t;
}

void elfsyms__free(struct elfsyms *t)
{
	if (!t)
		return;
	if (t->map_len) {
		munmap(t->cache, t->map_len);
	} else if (t->cache) {
		free(t->cache);
	} else {
		free(t->syms);
		free(t->max_end);
	}
	free(t);
}

size_t elfsyms__count(const struct elfsyms *t)
{
	return t->n;
}

/* Number of symbols with value <= addr. */
static size_t upper_bound(const struct elfsyms *t, uint64_t addr)
{
	return BSEARCH_FIRST((size_t)0, t->n, i, t->syms[i].value <= addr);
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
		return esym_name(t, best);
	if (global_label_at(t, below, addr))
		return slow(t, addr);
	best = pick(hits, nhits, true);
	return best ? esym_name(t, best) : NULL;
}
