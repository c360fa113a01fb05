#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "symbolize/unwtab.h"

#define DW_REG_RBP	6
#define DW_REG_RSP	7
#define DW_REG_RA	16

static int grow(void **arr, uint32_t *cap, size_t elem, uint32_t need)
{
	uint32_t ncap = *cap ? *cap : 256;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, (size_t)ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

void unwtab__free(struct unwtab *t)
{
	free(t->rows);
	free(t->rules);
	*t = (struct unwtab){ 0 };
}

/* The .eh_frame_hdr search table: its FDEs' start addresses, sorted (the usual
 * encodings only: fde_count udata4, entries datarel sdata4). */
struct hdr_table {
	const uint8_t *p;
	uint64_t base;		/* the section's link-time address */
	uint32_t n;
};

static int hdr_table(Elf *elf, struct hdr_table *h)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		const uint8_t *b;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".eh_frame_hdr"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < 12)
			return -ENOENT;
		b = d->d_buf;
		if (b[0] != 1 || b[1] != 0x1b || b[2] != 0x03 || b[3] != 0x3b)
			return -ENOENT;
		memcpy(&h->n, b + 8, 4);
		if (h->n > (d->d_size - 12) / 8)
			return -ENOENT;
		h->p = b + 12;
		h->base = sh.sh_addr;
		return 0;
	}
	return -ENOENT;
}

static uint64_t hdr_start(const struct hdr_table *h, uint32_t i)
{
	int32_t rel;

	memcpy(&rel, h->p + (size_t)i * 8, 4);
	return h->base + (int64_t)rel;
}

/* Register reg's rule as "saved at CFA + off" (*at true), "same" or "undefined". */
static bool reg_rule(Dwarf_Frame *fr, int reg, bool *at, bool *undef, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	*at = *undef = false;
	*off = 0;
	if (dwarf_frame_register(fr, reg, mem, &ops, &nops))
		return false;
	if (!nops) {
		*undef = ops == mem;
		return true;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa || nops > 2)
		return false;
	if (nops == 2) {
		if (ops[1].atom != DW_OP_plus_uconst)
			return false;
		*off = (int64_t)ops[1].number;
	}
	*at = true;
	return true;
}

/* The rule of frame fr in the walk's forms; kind UNWTAB_NONE when it has none. */
static void rule_of(Dwarf_Frame *fr, struct unwtab_rule *r)
{
	Dwarf_Op *ops;
	size_t nops;
	bool signal, at, undef;
	int64_t off, cfa;
	uint64_t reg;

	*r = (struct unwtab_rule){ 0 };
	if (dwarf_frame_info(fr, NULL, NULL, &signal) != DW_REG_RA || signal)
		return;
	if (!reg_rule(fr, DW_REG_RA, &at, &undef, &off))
		return;
	if (undef) {
		r->kind = UNWTAB_END;
		return;
	}
	if (!at || off != -8 || dwarf_frame_cfa(fr, &ops, &nops) || nops != 1)
		return;
	if (ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number;
		cfa = (int64_t)ops[0].number2;
	} else if (ops[0].atom == DW_OP_breg6 || ops[0].atom == DW_OP_breg7) {
		reg = ops[0].atom - DW_OP_breg0;
		cfa = (int64_t)ops[0].number;
	} else {
		return;
	}
	if ((reg != DW_REG_RSP && reg != DW_REG_RBP) || cfa <= 0 || cfa > INT32_MAX ||
	    !reg_rule(fr, DW_REG_RBP, &at, &undef, &off) || off < INT16_MIN || off > INT16_MAX)
		return;
	r->cfa_off = (int32_t)cfa;
	r->bp_off = (int16_t)off;
	r->bp = at ? UNWTAB_BP_AT : undef ? UNWTAB_BP_UNDEF : UNWTAB_BP_SAME;
	r->kind = reg == DW_REG_RSP ? UNWTAB_CFA_SP : UNWTAB_CFA_BP;
}

static uint64_t rule_key(const struct unwtab_rule *r)
{
	return (uint64_t)(uint32_t)r->cfa_off << 32 | (uint64_t)(uint16_t)r->bp_off << 16 |
	       (uint64_t)r->kind << 8 | r->bp;
}

/* Index of rule r in t, added on first use (rules[0], the empty rule, stands for every
 * UNWTAB_NONE). */
static int rule_id(struct unwtab *t, struct hmap *ids, const struct unwtab_rule *r, uint32_t *id)
{
	uint64_t key = rule_key(r);

	if (r->kind == UNWTAB_NONE) {
		*id = 0;
		return 0;
	}
	if (hmap__get(ids, key, id))
		return 0;
	if (grow((void **)&t->rules, &t->cap_rules, sizeof(*t->rules), t->nrules + 1))
		return -ENOMEM;
	t->rules[t->nrules] = *r;
	*id = t->nrules++;
	return hmap__put(ids, key, *id);
}

/* A row at pc, merged into the previous one when it says the same. */
static int row_add(struct unwtab *t, uint64_t pc, uint32_t rule)
{
	if (pc > UINT32_MAX)
		return -E2BIG;
	if (t->nrows && t->rows[t->nrows - 1].rule == rule)
		return 0;
	if (t->nrows && t->rows[t->nrows - 1].pc == pc) {
		t->rows[t->nrows - 1].rule = rule;
		return 0;
	}
	if (t->nrows >= UNWTAB_MAX_ROWS)
		return -E2BIG;
	if (grow((void **)&t->rows, &t->cap_rows, sizeof(*t->rows), t->nrows + 1))
		return -ENOMEM;
	t->rows[t->nrows++] = (struct unwtab_row){ (uint32_t)pc, rule };
	return 0;
}

/* The rows from pc on, frame by frame (libdw's row ranges), while the CFI describes the
 * code; *end is where it stops describing it. */
static int rows_from(struct unwtab *t, struct hmap *ids, Dwarf_CFI *cfi, uint64_t pc, uint64_t *end)
{
	Dwarf_Frame *fr;
	int err = 0;

	while (!err && !dwarf_cfi_addrframe(cfi, pc, &fr)) {
		Dwarf_Addr s, e;
		struct unwtab_rule r;
		uint32_t id;

		if (dwarf_frame_info(fr, &s, &e, NULL) < 0 || e <= pc || s > pc) {
			free(fr);
			break;
		}
		rule_of(fr, &r);
		free(fr);
		err = rule_id(t, ids, &r, &id);
		if (!err)
			err = row_add(t, pc, id);
		pc = e;
	}
	*end = pc;
	return err;
}

int unwtab__build(Elf *elf, struct unwtab *t)
{
	struct hdr_table h;
	struct hmap ids = { 0 };
	Dwarf_CFI *cfi;
	uint64_t covered = 0;
	int err;

	if (elf_kind(elf) != ELF_K_ELF || hdr_table(elf, &h) || !h.n ||
	    !(cfi = dwarf_getcfi_elf(elf)))
		return -ENOENT;
	err = grow((void **)&t->rules, &t->cap_rules, sizeof(*t->rules), 1);
	if (!err) {
		t->rules[0] = (struct unwtab_rule){ 0 };
		t->nrules = 1;
	}
	for (uint32_t i = 0; !err && i < h.n; i++) {
		uint64_t start = hdr_start(&h, i), end = start;

		if (start < covered)
			continue;
		if (start > covered && t->nrows)
			err = row_add(t, covered, 0);
		if (!err)
			err = rows_from(t, &ids, cfi, start, &end);
		covered = end > start ? end : start + 1;
	}
	if (!err && t->nrows)
		err = row_add(t, covered, 0);
	dwarf_cfi_end(cfi);
	hmap__free(&ids);
	if (!err && !t->nrows)
		err = -ENOENT;
	if (err)
		unwtab__free(t);
	return err;
}

const struct unwtab_row *unwtab__find(const struct unwtab *t, uint32_t pc)
{
	uint32_t lo = 0, hi = t->nrows;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}

#define UNWTAB_MAGIC 0x54574e55u	/* "UNWT" */

struct unwtab_hdr {
	uint32_t magic, nrows, nrules, reserved;
};

_Static_assert(sizeof(struct unwtab_rule) == sizeof(struct unwtab_row), "8-byte items");

int unwtab__encode(const struct unwtab *t, void **out, size_t *len)
{
	struct unwtab_hdr h = { UNWTAB_MAGIC, t->nrows, t->nrules, 0 };
	size_t rl = (size_t)t->nrules * sizeof(*t->rules), wl = (size_t)t->nrows * sizeof(*t->rows);
	char *b = malloc(sizeof(h) + rl + wl);

	if (!b)
		return -ENOMEM;
	memcpy(b, &h, sizeof(h));
	memcpy(b + sizeof(h), t->rules, rl);
	memcpy(b + sizeof(h) + rl, t->rows, wl);
	*out = b;
	*len = sizeof(h) + rl + wl;
	return 0;
}

static bool decoded_ok(const struct unwtab *t)
{
	if (t->rules[0].kind != UNWTAB_NONE)
		return false;
	for (uint32_t i = 0; i < t->nrules; i++)
		if (t->rules[i].kind > UNWTAB_END || t->rules[i].bp > UNWTAB_BP_UNDEF)
			return false;
	for (uint32_t i = 0; i < t->nrows; i++)
		if (t->rows[i].rule >= t->nrules || (i && t->rows[i - 1].pc >= t->rows[i].pc))
			return false;
	return true;
}

int unwtab__decode(const void *b, size_t len, struct unwtab *t)
{
	struct unwtab_hdr h;

	*t = (struct unwtab){ 0 };
	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, b, sizeof(h));
	if (h.magic != UNWTAB_MAGIC || !h.nrows || h.nrows > UNWTAB_MAX_ROWS || !h.nrules ||
	    h.nrules > UNWTAB_MAX_ROWS ||
	    len != sizeof(h) + ((size_t)h.nrules + h.nrows) * sizeof(struct unwtab_row))
		return -EINVAL;
	t->rules = malloc((size_t)h.nrules * sizeof(*t->rules));
	t->rows = malloc((size_t)h.nrows * sizeof(*t->rows));
	if (!t->rules || !t->rows) {
		unwtab__free(t);
		return -ENOMEM;
	}
	memcpy(t->rules, (const char *)b + sizeof(h), (size_t)h.nrules * sizeof(*t->rules));
	memcpy(t->rows, (const char *)b + sizeof(h) + (size_t)h.nrules * sizeof(*t->rules),
	       (size_t)h.nrows * sizeof(*t->rows));
	t->nrules = t->cap_rules = h.nrules;
	t->nrows = t->cap_rows = h.nrows;
	if (!decoded_ok(t)) {
		unwtab__free(t);
		return -EINVAL;
	}
	return 0;
}
