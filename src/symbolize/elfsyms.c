#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

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
	for (size_t i = 0; i < t->n; i++) {
		uint64_t end = t->syms[i].value + t->syms[i].size;

		t->max_end[i] = i && t->max_end[i - 1] > end ? t->max_end[i - 1] : end;
	}
	return t;
}

void elfsyms__free(struct elfsyms *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->max_end);
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
