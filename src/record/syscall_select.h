/* --syscalls: which syscalls the recorder attaches to, by name and class. */
#ifndef PROBEX_RECORD_SYSCALL_SELECT_H
#define PROBEX_RECORD_SYSCALL_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/records.h"

/* Parse --syscalls: comma-separated names, classes (%file %net %io %memory %process
 * %signal %desc), `all` and `reference` (the ten syscalls probex 0.1 recorded).  Fills
 * flags[nr] with SYSF_ON plus decoding bits.  Returns 0, or -EINVAL with the offending
 * item in bad (NUL-terminated, cut to badlen). */
int syscalls__parse(const char *list, uint8_t flags[PROBEX_SYSCALL_MAX], char *bad, size_t badlen);
/* Print the valid classes and names (for the usage error). */
void syscalls__print_valid(void *file);

#endif
