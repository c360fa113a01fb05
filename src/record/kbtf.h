/* The kernel's BTF for libbpf (kbtf.c). */
#ifndef PROBEX_RECORD_KBTF_H
#define PROBEX_RECORD_KBTF_H

/* Start reading the kernel's BTF on a thread of its own; the next load of it (libbpf's,
 * for an object with CO-RE relocations) takes that copy. */
void kbtf__prefetch(void);

#endif
