/* Unwind rules of x86-64 code, from each object's .eh_frame, computed once per (object,
 * address) for the whole run.  libdwfl interprets the CFI again for every frame of every
 * sample and needs a session per process; a build's twenty cc1 processes unwind through
 * the same few thousand addresses of one binary.  A rule here says, for one address,
 * how to find the caller's registers — only the forms the x86-64 toolchains emit for
 * ordinary code (CFA = a register + offset, or an expression that comes to one at that
 * address, as the PLT's does; each register the same, undefined, saved at CFA + n or
 * equal to CFA + n).  Anything else (other expressions, signal frames, objects without
 * .eh_frame) is no rule, and the caller unwinds that sample with libdwfl. */
#ifndef PROBEX_FINALIZE_CFIRULES_H
#define PROBEX_FINALIZE_CFIRULES_H

#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "bpf/records.h"

struct mapping;
struct cfirules;

enum cfi_how {
	CFI_SAME,	/* the caller's value is this frame's */
	CFI_UNDEF,	/* lost (call-clobbered) */
	CFI_AT,		/* saved in memory at CFA + off */
	CFI_VAL,	/* equal to CFA + off */
};

struct cfi_rule {
	int32_t cfa_off;
	uint8_t cfa_reg;		/* DWARF number, < UREG__COUNT */
	uint8_t how[UREG__COUNT];	/* enum cfi_how, by DWARF register number */
	int32_t off[UREG__COUNT];
};

/* The object mapped at m, as the walk needs it. */
struct cfi_object_info {
	uint64_t bias;		/* runtime address - link-time address */
	uint64_t entry;		/* runtime address of the ELF entry point (0: none) */
};

struct cfirules *cfirules__new(void);
void cfirules__free(struct cfirules *c);

/* The object behind mapping m (a file mapping; its .eh_frame describes its code), or
 * false when the fast path cannot serve it (no file, no .eh_frame, unreadable). */
bool cfirules__object(struct cfirules *c, const struct mapping *m, struct cfi_object_info *info);
/* The rule at runtime address addr (already adjusted to lie inside the call for return
 * addresses) of the object behind m, or NULL when there is none in the supported forms.
 * Valid until the next call. */
const struct cfi_rule *cfirules__at(struct cfirules *c, const struct mapping *m, uint64_t addr);

/* An object whose .eh_frame_hdr lists fewer FDEs than this was built without unwind
 * tables (the C runtime's own are all it has). */
#define CFI_FEW_FDES 16
/* The FDE count in .eh_frame_hdr (the usual encodings only), 0 without one, or
 * CFI_FEW_FDES when it cannot be told. */
uint32_t cfi__eh_fde_count(Elf *elf);
/* Load bias of elf mapped at m: its runtime address minus its link-time one, from the
 * loadable segment holding m's file offset.  0 or -ENOEXEC. */
int cfi__load_bias(Elf *elf, const struct mapping *m, uint64_t *bias);

struct cfirules_stats {
	uint64_t objects;	/* objects opened */
	uint64_t rules;		/* distinct addresses whose rule was computed */
	uint64_t lookups;	/* rules asked for */
};
void cfirules__stats(const struct cfirules *c, struct cfirules_stats *out);

#endif
