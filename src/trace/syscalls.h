/* The x86-64 syscalls by name (the table is generated at build time from the installed
 * <asm/unistd_64.h>) and which arguments are decoded. */
#ifndef PROBEX_TRACE_SYSCALLS_H
#define PROBEX_TRACE_SYSCALLS_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/records.h"

/* The kernel's name of syscall nr, or NULL when the headers do not know it. */
const char *syscall__name(unsigned int nr);
/* The number of a syscall name, or -1. */
int syscall__nr(const char *name);

/* Arguments written to the trace's columns on a syscall's enter row (-1: not decoded). */
struct syscall_args {
	int8_t fd;		/* argument holding a file descriptor (fd column) */
	int8_t count;		/* argument holding a byte count (count column) */
	int8_t offset;		/* argument holding a file offset (offset column) */
	int8_t futex_op;	/* argument holding a futex op (futex_op column) */
};

/* Decoding of syscall nr; SYSF_* bits beyond SYSF_ON in *flags (what the kernel side
 * reads: path, iovec sums). */
void syscall__args(unsigned int nr, struct syscall_args *a, uint8_t *flags);

#endif
