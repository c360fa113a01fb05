/* In-kernel user-stack walk: the compact unwind tables user space builds from each
 * object's .eh_frame (record/unwtab.c) and loads for each traced process
 * (record/unwload.c), and the walk over them (bpf/unwind.bpf.h).  Shared by the BPF
 * programs and user space, fixed-width types only. */
#ifndef PROBEX_BPF_UNWIND_H
#define PROBEX_BPF_UNWIND_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Frames of a user stack at most, walked and unwound together; the cap is counted. */
#define UNW_MAX_FRAMES		512
/* Executable file mappings per process the walk knows of (more: counted, copied). */
#define UNW_PROC_MAPS		48
/* Binary-search steps: tables of up to 2^UNW_BSEARCH_STEPS rows. */
#define UNW_BSEARCH_STEPS	24

/* One row: from link-time address pc (32 bits: an object's own addresses) up to the next
 * row's, the rule rules[rule] holds.  Rule 0 is "no rule here". */
struct unw_row {
	__u32 pc;
	__u32 rule;
};

enum unw_kind {
	UNW_NONE,	/* no rule the walk can follow: the copy goes on from this frame */
	UNW_CFA_SP,	/* CFA = rsp + cfa_off, return address at CFA - 8 */
	UNW_CFA_BP,	/* CFA = rbp + cfa_off, return address at CFA - 8 */
	UNW_END,	/* the return address is undefined: the outermost frame (_start) */
};

enum unw_bp {
	UNW_BP_SAME,	/* the caller's rbp is this frame's */
	UNW_BP_AT,	/* saved at CFA + bp_off */
	UNW_BP_UNDEF,	/* lost: a caller whose CFA is rbp-based ends the walk */
};

struct unw_rule {
	__s32 cfa_off;
	__s16 bp_off;
	__u8 kind;	/* enum unw_kind */
	__u8 bp;	/* enum unw_bp */
};

/* An executable file mapping of a process: its table rows[first, first + count), and
 * the bias from its runtime addresses to the table's link-time ones. */
struct unw_map {
	__u64 start, end;
	__u64 bias;
	__u32 first, count;
};

/* A process's mappings, sorted by start. */
struct unw_proc {
	__u32 n;
	__u32 _pad;
	struct unw_map m[UNW_PROC_MAPS];
};

/* Why a walk ended (counted per reason, unw_stats). */
enum unw_end {
	UNW_END_WHOLE,		/* reached the outermost frame */
	UNW_END_NO_PROC,	/* no table loaded for the process (yet) */
	UNW_END_NO_MAP,		/* a pc outside every known mapping (JIT, vdso, not loaded) */
	UNW_END_NO_RULE,	/* a pc whose rule the walk cannot follow */
	UNW_END_BAD_READ,	/* a return address or saved rbp could not be read */
	UNW_END_LOOP,		/* the CFA did not move up the stack */
	UNW_END_CAP,		/* UNW_MAX_FRAMES reached */
	UNW_END__COUNT,
};

#endif
