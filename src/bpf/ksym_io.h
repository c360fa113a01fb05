/* The kernel-symbol lookup program's buffer (ksym.bpf.h), which user space fills with
 * addresses and reads back as "%pS" labels (record/kresolve.c).  Shared by both sides. */
#ifndef PROBEX_BPF_KSYM_IO_H
#define PROBEX_BPF_KSYM_IO_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define PROBEX_KSYM_BATCH	32	/* addresses per program run */
#define PROBEX_KSYM_LABEL	160	/* "func+0xoff/0xsize [module]" with its NUL */

struct ksym_io {
	__u64 addr[PROBEX_KSYM_BATCH];
	__u32 n;
	__u32 _pad;
	__s32 len[PROBEX_KSYM_BATCH];	/* bpf_snprintf's result: length with the NUL, or -errno */
	char label[PROBEX_KSYM_BATCH][PROBEX_KSYM_LABEL];
};

#endif
