#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/hmap.h"
#include "finalize/cfirules.h"
#include "symbolize/addrspace.h"
#include "symbolize/strmap.h"

#define RA_REG		16	/* x86-64's return address column */
#define NO_RULE		UINT32_MAX
#define REL_BITS	44	/* link-time addresses fit; the object index goes above */

struct object {
	int fd;
	Elf *elf;
	Dwarf_CFI *cfi;		/* .eh_frame; NULL: not served here */
	uint64_t entry;		/* link-time e_entry */
};

struct mapped {
	uint32_t obj;
	bool ok;
	uint64_t bias;
};

struct cfirules {
	struct strmap paths;	/* path -> object index */
	struct object *objs;
	uint32_t nobjs, cap_objs;
	struct hmap by_mapping;	/* struct mapping * -> index in maps */
	struct mapped *maps;
	uint32_t nmaps, cap_maps;
	struct hmap by_addr;	/* object << REL_BITS | link-time address -> rule or NO_RULE */
	struct cfi_rule *rules;
	uint32_t nrules, cap_rules;
	struct cfirules_stats st;
};

#define GROW(arr, n, cap)                                                                  \
	((n) < (cap) ? 0 : grow_array((void **)&(arr), &(cap), sizeof(*(arr))))

static int grow_array(void **arr, uint32_t *cap, size_t elem)
{
	uint32_t ncap = *cap ? *cap * 2 : 64;
	void *p = realloc(*arr, (size_t)ncap * elem);

	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

uint32_t cfi__eh_fde_count(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return CFI_FEW_FDES;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		uint32_t n;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".eh_frame_hdr"))
			continue;
		d = elf_getdata(scn, NULL);
		/* version 1, eh_frame_ptr pcrel|sdata4, fde_count udata4 */
		if (!d || !d->d_buf || d->d_size < 12 || ((uint8_t *)d->d_buf)[0] != 1 ||
		    ((uint8_t *)d->d_buf)[1] != 0x1b || ((uint8_t *)d->d_buf)[2] != 0x03)
			return CFI_FEW_FDES;
		memcpy(&n, (uint8_t *)d->d_buf + 8, 4);
		return n;
	}
	return 0;
}

int cfi__load_bias(Elf *elf, const struct mapping *m, uint64_t *bias)
{
	size_t phnum;
	int found = -ENOEXEC;

	if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &phnum))
		return -ENOEXEC;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    m->pgoff < (ph.p_offset & ~0xfffull) || m->pgoff >= ph.p_offset + ph.p_filesz)
			continue;
		/* The executable segment first: with lld's layout a code mapping's first page
		 * also holds the end of the read-only segment before it, whose bias differs. */
		if (found || (ph.p_flags & PF_X))
			*bias = m->start - m->pgoff + ph.p_offset - ph.p_vaddr;
		found = 0;
		if (ph.p_flags & PF_X)
			return 0;
	}
	return found;
}

static void object_close(struct object *o)
{
	if (o->cfi)
		dwarf_cfi_end(o->cfi);
	elf_end(o->elf);
	if (o->fd >= 0)
		close(o->fd);
}

struct cfirules *cfirules__new(void)
{
	/* libelf opens nothing before its version is set.  Left to whichever libdwfl session
	 * began first, the objects opened before it had no CFI, and their samples went the
	 * slow way (a libdwfl session per address space). */
	elf_version(EV_CURRENT);
	return calloc(1, sizeof(struct cfirules));
}

void cfirules__free(struct cfirules *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->nobjs; i++)
		object_close(&c->objs[i]);
	strmap__free(&c->paths);
	hmap__free(&c->by_mapping);
	hmap__free(&c->by_addr);
	free(c->objs);
	free(c->maps);
	free(c->rules);
	free(c);
}

/* Open path's object once, with its .eh_frame CFI.  However few FDEs it has: a pc
 * without one sends the sample to libdwfl, which looks further (.debug_frame of objects
 * built without unwind tables); a small program's two FDEs (python3's launcher: main and
 * _start) may well be all its code. */
static void object_open(struct object *o, const char *path)
{
	GElf_Ehdr eh;

	*o = (struct object){ .fd = open(path, O_RDONLY | O_CLOEXEC) };
	if (o->fd < 0)
		return;
	o->elf = elf_begin(o->fd, ELF_C_READ_MMAP, NULL);
	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF || !gelf_getehdr(o->elf, &eh) ||
	    eh.e_machine != EM_X86_64)
		return;
	o->entry = eh.e_entry;
	o->cfi = dwarf_getcfi_elf(o->elf);
}

/* The object index for m's file (opened on first use), or -1. */
static int64_t object_of(struct cfirules *c, const struct mapping *m)
{
	char path[4200];
	uint64_t idx;
	size_t n;

	if (m->path[0] != '/')
		return -1;
	n = strlen(m->path);
	if (n >= sizeof(path))
		return -1;
	memcpy(path, m->path, n + 1);
	if (n > 10 && !strcmp(path + n - 10, " (deleted)"))
		path[n -= 10] = 0;
	if (strmap__get(&c->paths, path, n, &idx))
		return (int64_t)idx;
	if (c->nobjs >= (1u << (64 - REL_BITS)) - 1 || GROW(c->objs, c->nobjs, c->cap_objs))
		return -1;
	object_open(&c->objs[c->nobjs], path);
	if (!strmap__put(&c->paths, path, n, c->nobjs)) {
		object_close(&c->objs[c->nobjs]);
		return -1;
	}
	c->st.objects++;
	return c->nobjs++;
}

static const struct mapped *mapped_of(struct cfirules *c, const struct mapping *m)
{
	uint64_t key = (uint64_t)(uintptr_t)m;
	struct mapped *mp;
	uint32_t i;
	int64_t obj;

	if (hmap__get(&c->by_mapping, key, &i))
		return &c->maps[i];
	if (GROW(c->maps, c->nmaps, c->cap_maps))
		return NULL;
	mp = &c->maps[c->nmaps];
	*mp = (struct mapped){ 0 };
	obj = object_of(c, m);
	if (obj >= 0 && c->objs[obj].cfi) {
		mp->obj = (uint32_t)obj;
		mp->ok = !cfi__load_bias(c->objs[obj].elf, m, &mp->bias);
	}
	if (hmap__put(&c->by_mapping, key, c->nmaps))
		return NULL;
	return &c->maps[c->nmaps++];
}

bool cfirules__object(struct cfirules *c, const struct mapping *m, struct cfi_object_info *info)
{
	const struct mapped *mp = mapped_of(c, m);

	if (!mp || !mp->ok)
		return false;
	info->bias = mp->bias;
	info->entry = c->objs[mp->obj].entry ? c->objs[mp->obj].entry + mp->bias : 0;
	return true;
}

/* How register ops (dwarf_frame_register's answer) recover the caller's value, in the
 * forms libdw gives for the same, undefined, offset(n) and val_offset(n) rules. */
static bool classify(const Dwarf_Op *ops, size_t nops, const Dwarf_Op *mem, uint8_t *how,
		     int32_t *off)
{
	int64_t n = 0;
	size_t i = 1;

	*off = 0;
	if (!nops) {
		*how = ops == mem ? CFI_UNDEF : CFI_SAME;
		return ops == mem || ops == NULL;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (i < nops && ops[i].atom == DW_OP_plus_uconst)
		n = (int64_t)ops[i++].number;
	*how = CFI_AT;
	if (i < nops && ops[i].atom == DW_OP_stack_value) {
		*how = CFI_VAL;
		i++;
	}
	if (i != nops || n < INT32_MIN || n > INT32_MAX)
		return false;
	*off = (int32_t)n;
	return true;
}

/* A value of a CFA expression: a constant, a register plus a constant, or the pc plus a
 * constant (known at link time only up to the load bias, a multiple of the page size). */
struct xval {
	enum { XV_CONST, XV_REG, XV_PC } kind;
	uint8_t reg;
	uint64_t v;
};

#define XSTACK 8

/* One binary operation of a CFA expression.  Constants combine freely; a register or the
 * pc takes a constant added or subtracted; the pc's low bits (below the page size) are
 * known, so `pc & mask` is a constant for a small mask.  False for anything else. */
static bool xval_binop(uint8_t op, struct xval *a, const struct xval *b)
{
	if (a->kind == XV_CONST && b->kind == XV_CONST) {
		switch (op) {
		case DW_OP_and: a->v &= b->v; return true;
		case DW_OP_plus: a->v += b->v; return true;
		case DW_OP_minus: a->v -= b->v; return true;
		case DW_OP_mul: a->v *= b->v; return true;
		case DW_OP_shl: a->v = b->v < 64 ? a->v << b->v : 0; return true;
		case DW_OP_shr: a->v = b->v < 64 ? a->v >> b->v : 0; return true;
		case DW_OP_ge: a->v = (int64_t)a->v >= (int64_t)b->v; return true;
		case DW_OP_gt: a->v = (int64_t)a->v > (int64_t)b->v; return true;
		case DW_OP_le: a->v = (int64_t)a->v <= (int64_t)b->v; return true;
		case DW_OP_lt: a->v = (int64_t)a->v < (int64_t)b->v; return true;
		case DW_OP_eq: a->v = a->v == b->v; return true;
		case DW_OP_ne: a->v = a->v != b->v; return true;
		default: return false;
		}
	}
	if (a->kind == XV_PC && b->kind == XV_CONST && op == DW_OP_and && b->v < 4096) {
		*a = (struct xval){ XV_CONST, 0, a->v & b->v };
		return true;
	}
	if (a->kind != XV_CONST && b->kind == XV_CONST && (op == DW_OP_plus || op == DW_OP_minus)) {
		a->v = op == DW_OP_plus ? a->v + b->v : a->v - b->v;
		return true;
	}
	if (a->kind == XV_CONST && b->kind != XV_CONST && op == DW_OP_plus) {
		uint64_t c = a->v;

		*a = *b;
		a->v += c;
		return true;
	}
	return false;
}

/* The CFA at link-time address rel as a register plus an offset, from libdw's operations
 * for it: one DW_OP_bregx (DW_CFA_def_cfa), or an expression (DW_CFA_def_cfa_expression)
 * that comes to one at this address.  The PLT's is the one ordinary code has: rsp + 8,
 * plus 8 once its entry has pushed (rip & 15 >= 11); libdwfl's session per process was
 * the price of a sample in a PLT stub. */
static bool cfa_of(const Dwarf_Op *ops, size_t nops, uint64_t rel, uint8_t *reg, int64_t *off)
{
	struct xval st[XSTACK];
	size_t sp = 0;

	for (size_t i = 0; i < nops; i++) {
		uint8_t a = ops[i].atom;

		if (sp == XSTACK)
			return false;
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
			st[sp++] = (struct xval){ XV_CONST, 0, a - DW_OP_lit0 };
		else if (a == DW_OP_const1u || a == DW_OP_const2u || a == DW_OP_const4u ||
			 a == DW_OP_const8u || a == DW_OP_constu || a == DW_OP_const1s ||
			 a == DW_OP_const2s || a == DW_OP_const4s || a == DW_OP_const8s ||
			 a == DW_OP_consts)
			st[sp++] = (struct xval){ XV_CONST, 0, ops[i].number };
		else if ((a >= DW_OP_breg0 && a <= DW_OP_breg31) || a == DW_OP_bregx) {
			uint64_t r = a == DW_OP_bregx ? ops[i].number : (uint64_t)(a - DW_OP_breg0);
			uint64_t n = a == DW_OP_bregx ? ops[i].number2 : ops[i].number;

			if (r == RA_REG)
				st[sp++] = (struct xval){ XV_PC, 0, rel + n };
			else if (r < UREG__COUNT)
				st[sp++] = (struct xval){ XV_REG, (uint8_t)r, n };
			else
				return false;
		} else if (a == DW_OP_plus_uconst && sp >= 1) {
			st[sp - 1].v += ops[i].number;
		} else if (sp >= 2 && xval_binop(a, &st[sp - 2], &st[sp - 1])) {
			sp--;
		} else {
			return false;
		}
	}
	if (sp != 1 || st[0].kind != XV_REG || (int64_t)st[0].v < INT32_MIN || (int64_t)st[0].v > INT32_MAX)
		return false;
	*reg = st[0].reg;
	*off = (int64_t)st[0].v;
	return true;
}

static bool rule_from(Dwarf_CFI *cfi, uint64_t rel, struct cfi_rule *r)
{
	Dwarf_Frame *fr;
	Dwarf_Op mem[3], *ops;
	size_t nops;
	bool signal, ok = false;
	int64_t cfa_off;

	if (dwarf_cfi_addrframe(cfi, rel, &fr))
		return false;
	if (dwarf_frame_info(fr, NULL, NULL, &signal) != RA_REG || signal ||
	    dwarf_frame_cfa(fr, &ops, &nops) || !cfa_of(ops, nops, rel, &r->cfa_reg, &cfa_off))
		goto out;
	r->cfa_off = (int32_t)cfa_off;
	for (int reg = 0; reg < UREG__COUNT; reg++)
		if (dwarf_frame_register(fr, reg, mem, &ops, &nops) ||
		    !classify(ops, nops, mem, &r->how[reg], &r->off[reg]))
			goto out;
	ok = true;
out:
	free(fr);
	return ok;
}

const struct cfi_rule *cfirules__at(struct cfirules *c, const struct mapping *m, uint64_t addr)
{
	const struct mapped *mp = mapped_of(c, m);
	uint64_t rel, key;
	uint32_t i;

	c->st.lookups++;
	if (!mp || !mp->ok)
		return NULL;
	rel = addr - mp->bias;
	if (rel >> REL_BITS)
		return NULL;
	key = (uint64_t)mp->obj << REL_BITS | rel;
	if (hmap__get(&c->by_addr, key, &i))
		return i == NO_RULE ? NULL : &c->rules[i];
	i = NO_RULE;
	if (!GROW(c->rules, c->nrules, c->cap_rules) &&
	    rule_from(c->objs[mp->obj].cfi, rel, &c->rules[c->nrules])) {
		i = c->nrules++;
		c->st.rules++;
	}
	if (hmap__put(&c->by_addr, key, i))
		return NULL;
	return i == NO_RULE ? NULL : &c->rules[i];
}

void cfirules__stats(const struct cfirules *c, struct cfirules_stats *out)
{
	*out = c->st;
}
