/* Kernel symbols asked of the kernel itself, after recording: see bpf/ksym.bpf.h. */
#ifndef PROBEX_RECORD_KRESOLVE_H
#define PROBEX_RECORD_KRESOLVE_H

struct ksyms;

/* A lazy symbol table (symbolize/ksym.h) that names addresses by running the lookup
 * program prog_fd over its buffer map map_fd (both duplicated: the table outlives the
 * probes).  Checked with one run while the caller may still hold privileges; NULL and
 * errno when the program cannot be run. */
struct ksyms *kresolve__ksyms(int prog_fd, int map_fd);

#endif
