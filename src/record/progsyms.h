/* Kernel symbols of our own BPF programs, read from the kernel once they are loaded. */
#ifndef PROBEX_RECORD_PROGSYMS_H
#define PROBEX_RECORD_PROGSYMS_H

#include <stddef.h>

struct ksym_add;

/* The programs fds[0..nprogs) (< 0: not loaded), whose C functions are names[]: the JITed
 * range of each program and of each of its subprograms, labelled STACK_PROBEX_BPF_PREFIX
 * and the function's name, in module "bpf".  *n symbols in *out (labels malloc'd, the
 * array too; as many as could be read). */
void progsyms__read(const int *fds, const char *const *names, int nprogs, struct ksym_add **out,
		    size_t *n);

#endif
