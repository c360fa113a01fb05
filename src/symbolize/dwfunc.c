#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/bsearch.h"
#include "symbolize/dwfunc.h"
#include "symbolize/strmap.h"

/* dwarf_getscopes would do, but it walks the whole compile unit on every call and prunes
 * namespaces (where rustc puts every function), so lookups in large CUs (CPython's
 * interpreter loop) cost milliseconds each. Instead each CU's functions are listed once, sorted by
 * address, and each function's inlined calls are listed once, flattened with their nesting;
 * a lookup is a binary search plus a scan of one function's inlines. */

struct fn_range {
	Dwarf_Addr lo, hi;	/* DWARF addresses (no Dwfl bias), [lo, hi) */
	Dwarf_Die die;		/* the subprogram; a Dwarf_Die is a plain handle into the data */
};

struct cu_funcs {
	struct fn_range *r;
	size_t n, cap;
};

struct inl_range {
	Dwarf_Addr lo, hi;
};

/* One DW_TAG_inlined_subroutine of a function, in DIE preorder (parents before children). */
struct inl {
	Dwarf_Die die;
	int parent;		/* index of the enclosing inline, -1 when it is the function */
	int ok;			/* scratch during one lookup: this and all its parents hold pc */
	size_t first, count;	/* its ranges in fn_inlines.r */
};

struct fn_inlines {
	struct inl *v;
	size_t n, cap;
	struct inl_range *r;
	size_t nr, capr;
};

/* A compile unit's address range, for modules without .debug_aranges. */
struct cu_range {
	Dwarf_Addr lo, hi;
	size_t cu;		/* index in dwfunc.cudies */
};

struct dwfunc {
	Dwfl_Module *mod;
	int cu_index_state;	/* 0 not built, 1 built, -1 no DWARF or failed */
	struct cu_range *cur;
	size_t ncur;
	Dwarf_Die *cudies;
	size_t ncudies;
	Dwarf_Addr cu_bias;
	struct strmap cus;	/* CU DIE offset → struct cu_funcs * */
	struct strmap fns;	/* function DIE offset → struct fn_inlines * */
	void **owned;		/* everything above, for freeing */
	size_t nowned, capowned;
};

struct dwfunc *dwfunc__new(Dwfl_Module *mod)
{
	struct dwfunc *d = calloc(1, sizeof(*d));

	if (d)
		d->mod = mod;
	return d;
}

/* cu_funcs and fn_inlines both start with their array pointers; owned[] tags them by the
 * low bit so one list frees both. */
static int dwfunc__own(struct dwfunc *d, void *p, int is_fn)
{
	if (d->nowned == d->capowned) {
		size_t cap = d->capowned ? d->capowned * 2 : 64;
		void **owned = realloc(d->owned, cap * sizeof(*owned));

		if (!owned)
			return -ENOMEM;
		d->owned = owned;
		d->capowned = cap;
	}
	d->owned[d->nowned++] = (void *)((uintptr_t)p | (uintptr_t)is_fn);
	return 0;
}

void dwfunc__free(struct dwfunc *d)
{
	if (!d)
		return;
	for (size_t i = d->nowned; i-- > 0;) {
		uintptr_t p = (uintptr_t)d->owned[i];

		if (p & 1) {
			struct fn_inlines *fi = (struct fn_inlines *)(p & ~(uintptr_t)1);

			free(fi->r);
			free(fi->v);
			free(fi);
		} else {
			struct cu_funcs *f = (struct cu_funcs *)p;

			free(f->r);
			free(f);
		}
	}
	free(d->owned);
	free(d->cur);
	free(d->cudies);
	strmap__free(&d->fns);
	strmap__free(&d->cus);
	free(d);
}

static int cu_funcs__add(struct cu_funcs *f, Dwarf_Die *die)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	/* A function has several ranges when the compiler split out cold parts. */
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (f->n == f->cap) {
			size_t cap = f->cap ? f->cap * 2 : 64;
			struct fn_range *r = realloc(f->r, cap * sizeof(*r));

			if (!r)
				return -ENOMEM;
			f->r = r;
			f->cap = cap;
		}
		f->r[f->n++] = (struct fn_range){ .lo = lo, .hi = hi, .die = *die };
	}
	return 0;
}

/* Subprograms with code sit at CU level (C, C++ definitions carry DW_AT_specification) or
 * inside namespaces and types (Rust, some C++). Function bodies are not entered: nested
 * functions are rare and fall back to the ELF symbol.  In C, types hold no functions:
 * their members are not walked (every CPython CU declares hundreds of structs from its
 * headers, and walking their members was most of labelling a python3 trace). */
static int cu_funcs__collect(struct cu_funcs *f, Dwarf_Die *parent, int depth, bool c_lang)
{
	Dwarf_Die child;
	int err;

	if (dwarf_child(parent, &child) != 0)
		return 0;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			err = cu_funcs__add(f, &child);
			if (err)
				return err;
			break;
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			if (c_lang)
				break;
			/* fall through */
		case DW_TAG_namespace:
		case DW_TAG_module:
			if (depth < 32) {
				err = cu_funcs__collect(f, &child, depth + 1, c_lang);
				if (err)
					return err;
			}
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static bool is_c(Dwarf_Die *cudie)
{
	switch (dwarf_srclang(cudie)) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
#ifdef DW_LANG_C17
	case DW_LANG_C17:
#endif
		return true;
	default:
		return false;
	}
}

static int fn_range__cmp(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

static struct cu_funcs *dwfunc__cu(struct dwfunc *d, Dwarf_Die *cudie)
{
	Dwarf_Off key = dwarf_dieoffset(cudie);
	struct cu_funcs *f = NULL;
	uint64_t val;

	if (strmap__get(&d->cus, &key, sizeof(key), &val))
		return (struct cu_funcs *)(uintptr_t)val;

	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	if (cu_funcs__collect(f, cudie, 0, is_c(cudie)))
		goto cleanup;
	qsort(f->r, f->n, sizeof(*f->r), fn_range__cmp);
	if (dwfunc__own(d, f, 0))
		goto cleanup;
	if (!strmap__put(&d->cus, &key, sizeof(key), (uintptr_t)f)) {
		d->nowned--;
		goto cleanup;
	}
	return f;

cleanup:
	free(f->r);
	free(f);
	return NULL;
}

/* The function whose range holds pc: the last range starting at or below pc. */
static const struct fn_range *cu_funcs__find(const struct cu_funcs *f, Dwarf_Addr pc)
{
	size_t lo = BSEARCH_FIRST((size_t)0, f->n, i, f->r[i].lo <= pc);

	if (lo == 0 || pc >= f->r[lo - 1].hi)
		return NULL;
	return &f->r[lo - 1];
}

static int fn_inlines__add(struct fn_inlines *fi, Dwarf_Die *die, int parent)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	struct inl *in;

	if (fi->n == fi->cap) {
		size_t cap = fi->cap ? fi->cap * 2 : 16;
		struct inl *v = realloc(fi->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		fi->v = v;
		fi->cap = cap;
	}
	in = &fi->v[fi->n];
	*in = (struct inl){ .die = *die, .parent = parent, .first = fi->nr };
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (fi->nr == fi->capr) {
			size_t cap = fi->capr ? fi->capr * 2 : 16;
			struct inl_range *r = realloc(fi->r, cap * sizeof(*r));

			if (!r)
				return -ENOMEM;
			fi->r = r;
			fi->capr = cap;
		}
		fi->r[fi->nr++] = (struct inl_range){ lo, hi };
		in->count++;
	}
	return fi->n++;
}

/* Inlined calls can sit in lexical blocks (and try/catch scopes); those only lead the way. */
static int fn_inlines__collect(struct fn_inlines *fi, Dwarf_Die *parent, int parent_idx, int depth)
{
	Dwarf_Die child;
	int idx, err;

	if (depth > 256 || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_inlined_subroutine:
			idx = fn_inlines__add(fi, &child, parent_idx);
			if (idx < 0)
				return idx;
			err = fn_inlines__collect(fi, &child, idx, depth + 1);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
		case DW_TAG_with_stmt:
			err = fn_inlines__collect(fi, &child, parent_idx, depth + 1);
			break;
		default:
			err = 0;
			break;
		}
		if (err)
			return err;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static struct fn_inlines *dwfunc__inlines(struct dwfunc *d, Dwarf_Die *fn)
{
	Dwarf_Off key = dwarf_dieoffset(fn);
	struct fn_inlines *fi;
	uint64_t val;

	if (strmap__get(&d->fns, &key, sizeof(key), &val))
		return (struct fn_inlines *)(uintptr_t)val;
	fi = calloc(1, sizeof(*fi));
	if (!fi)
		return NULL;
	if (fn_inlines__collect(fi, fn, -1, 0) || dwfunc__own(d, fi, 1))
		goto cleanup;
	if (!strmap__put(&d->fns, &key, sizeof(key), (uintptr_t)fi)) {
		d->nowned--;
		goto cleanup;
	}
	return fi;

cleanup:
	free(fi->r);
	free(fi->v);
	free(fi);
	return NULL;
}

static int inl__holds(const struct fn_inlines *fi, const struct inl *in, Dwarf_Addr pc)
{
	for (size_t i = in->first; i < in->first + in->count; i++) {
		if (pc >= fi->r[i].lo && pc < fi->r[i].hi)
			return 1;
	}
	return 0;
}

static int cu_range__cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* libdw 0.188 finds CUs through .debug_aranges only, which clang (and other producers)
 * omit by default; without this every lookup in such a binary would lose its DWARF. The
 * CUs' own ranges are read once, like newer elfutils do. */
static int dwfunc__build_cu_index(struct dwfunc *d)
{
	Dwarf *dw = dwfl_module_getdwarf(d->mod, &d->cu_bias);
	size_t capr = 0, capd = 0;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t type;

	if (!dw)
		return -ENOENT;
	while (dwarf_get_units(dw, cu, &cu, NULL, &type, &cudie, NULL) == 0) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		if (type != DW_UT_compile && type != DW_UT_skeleton)
			continue;
		if (d->ncudies == capd) {
			Dwarf_Die *v = realloc(d->cudies, (capd = capd ? capd * 2 : 64) * sizeof(*v));

			if (!v)
				return -ENOMEM;
			d->cudies = v;
		}
		d->cudies[d->ncudies] = cudie;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			if (lo >= hi)
				continue;
			if (d->ncur == capr) {
				struct cu_range *v = realloc(d->cur, (capr = capr ? capr * 2 : 64) * sizeof(*v));

				if (!v)
					return -ENOMEM;
				d->cur = v;
			}
			d->cur[d->ncur++] = (struct cu_range){ lo, hi, d->ncudies };
		}
		d->ncudies++;
	}
	qsort(d->cur, d->ncur, sizeof(*d->cur), cu_range__cmp);
	return 0;
}

Dwarf_Die *dwfunc__cu_die(struct dwfunc *d, Dwarf_Addr addr, Dwarf_Addr *bias)
{
	Dwarf_Die *cudie = dwfl_module_addrdie(d->mod, addr, bias);
	size_t lo;

	if (cudie)
		return cudie;
	if (!d->cu_index_state)
		d->cu_index_state = dwfunc__build_cu_index(d) ? -1 : 1;
	if (d->cu_index_state < 0)
		return NULL;
	addr -= d->cu_bias;
	/* Ranges of different CUs do not overlap; the last one starting at or below addr. */
	lo = BSEARCH_FIRST((size_t)0, d->ncur, i, d->cur[i].lo <= addr);
	if (!lo || addr >= d->cur[lo - 1].hi)
		return NULL;
	*bias = d->cu_bias;
	return &d->cudies[d->cur[lo - 1].cu];
}

int dwfunc__chain(struct dwfunc *d, Dwarf_Addr addr, Dwarf_Die *chain, int max)
{
	const struct fn_range *fr;
	struct fn_inlines *fi;
	struct cu_funcs *f;
	Dwarf_Die *cudie;
	Dwarf_Addr bias;
	int deepest = -1, depth = 0, n;

	if (max < 2)
		return -EINVAL;
	cudie = dwfunc__cu_die(d, addr, &bias);
	if (!cudie)
		return 0;
	f = dwfunc__cu(d, cudie);
	if (!f)
		return -ENOMEM;
	addr -= bias;
	fr = cu_funcs__find(f, addr);
	if (!fr)
		return 0;
	fi = dwfunc__inlines(d, (Dwarf_Die *)&fr->die);
	if (!fi)
		return -ENOMEM;

	/* The innermost inline holding pc whose ancestors all hold it too, as a walk down the
	 * DIE tree would find it; preorder means parents are decided before children. */
	for (size_t i = 0; i < fi->n; i++) {
		struct inl *in = &fi->v[i];

		in->ok = (in->parent < 0 || fi->v[in->parent].ok) && inl__holds(fi, in, addr);
		if (in->ok)
			deepest = i;
	}
	for (int i = deepest; i >= 0; i = fi->v[i].parent)
		depth++;
	/* chain = function, then inlines outermost first; when too deep, keep the outermost
	 * max - 1 levels below the function and replace the last with the innermost. */
	n = depth + 1 <= max ? depth + 1 : max;
	chain[0] = fr->die;
	for (int i = deepest, level = depth; i >= 0; i = fi->v[i].parent, level--) {
		if (level < n && (n == depth + 1 || level < n - 1))
			chain[level] = fi->v[i].die;
		else if (i == deepest)
			chain[n - 1] = fi->v[i].die;
	}
	return n;
}
