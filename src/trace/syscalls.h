/* The x86-64 syscalls by name (the table is generated at build time from the installed
 * <asm/unistd_64.h>) and their facts: which arguments are decoded, what the result is. */
#ifndef PROBEX_TRACE_SYSCALLS_H
#define PROBEX_TRACE_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACE_SYSCALL_MAX	512	/* syscall numbers a trace can name: 0 .. this - 1 */

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

/* Facts about a syscall's arguments and return value on x86-64. */
#define SYSCALL_PATH0		0x01	/* argument 0 is a path */
#define SYSCALL_PATH1		0x02	/* argument 1 is a path */
#define SYSCALL_IOV		0x04	/* arguments 1, 2 are an iovec array and its length */
#define SYSCALL_MSG		0x08	/* argument 1 is a struct user_msghdr */
#define SYSCALL_FORK		0x10	/* the new task returns from it too, without having entered it */
#define SYSCALL_RET_BYTES	0x20	/* the return value is a byte count */

/* Decoding of syscall nr, and its SYSCALL_* facts in *facts. */
void syscall__args(unsigned int nr, struct syscall_args *a, uint8_t *facts);
/* Whether the return value of the syscall named name is a byte count. */
bool syscall__ret_is_bytes(const char *name);
/* Whether the syscall named name does I/O (moves or syncs data: the viewer's IO tab). */
bool syscall__is_io(const char *name);

#endif
