/* Compact unwind tables of x86-64 objects, built from .eh_frame for the in-kernel stack
 * walk: rows sorted by link-time address, each naming a rule of the few forms the walk
 * follows (CFA = rsp or rbp + offset, return address at CFA - 8, rbp unchanged, lost or
 * saved at CFA + n) or "no rule here".  The recorder loads them into BPF maps
 * (record/unwload.c), whose layouts equal these. */
#ifndef PROBEX_SYMBOLIZE_UNWTAB_H
#define PROBEX_SYMBOLIZE_UNWTAB_H

#include <libelf.h>
#include <stdint.h>

/* Rows per object at most (8 bytes each, 4 MiB); larger objects get no table. */
#define UNWTAB_MAX_ROWS (1u << 19)

struct unwtab_row {
	uint32_t pc;	/* link-time address */
	uint32_t rule;	/* index into the table's rules; 0: no rule */
};

enum unwtab_kind { UNWTAB_NONE, UNWTAB_CFA_SP, UNWTAB_CFA_BP, UNWTAB_END };
enum unwtab_bp { UNWTAB_BP_SAME, UNWTAB_BP_AT, UNWTAB_BP_UNDEF };

struct unwtab_rule {
	int32_t cfa_off;
	int16_t bp_off;
	uint8_t kind;	/* enum unwtab_kind */
	uint8_t bp;	/* enum unwtab_bp */
};

struct unwtab {
	struct unwtab_row *rows;
	uint32_t nrows, cap_rows;
	struct unwtab_rule *rules;	/* rules[0] is the empty rule */
	uint32_t nrules, cap_rules;
};

/* elf's table into t (zeroed by the caller; unwtab__free releases it).  0, -ENOENT when
 * the object has no usable .eh_frame / .eh_frame_hdr, -E2BIG past UNWTAB_MAX_ROWS or
 * beyond 32-bit addresses, -ENOMEM. */
int unwtab__build(Elf *elf, struct unwtab *t);
void unwtab__free(struct unwtab *t);

/* The table as bytes for the on-disk cache (symcache__blob_store), and back: a decoded
 * table is checked as a built one would be (sorted rows, known rules), else -EINVAL. */
int unwtab__encode(const struct unwtab *t, void **out, size_t *len);
int unwtab__decode(const void *b, size_t len, struct unwtab *t);

/* The row covering link-time address pc, or NULL. */
const struct unwtab_row *unwtab__find(const struct unwtab *t, uint32_t pc);

#endif
