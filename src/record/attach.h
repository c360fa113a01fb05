/* Attaching to running processes (--pid): checking they exist, and writing what the
 * mmap side-band cannot tell any more — the mappings they had before probex came. */
#ifndef PROBEX_RECORD_ATTACH_H
#define PROBEX_RECORD_ATTACH_H

#include <stdint.h>

struct spool_writer;
struct unwload;

/* 0 when every pid is a running process; else -ESRCH with a message printed. */
int attach__check(const int *pids, int npids);

/* Write the file mappings of process tgid, read from /proc/TGID/maps, into the spool as
 * PERF_RECORD_MMAP2 records stamped ts (CLOCK_MONOTONIC), like the kernel's own, and hand
 * them to the stack walk's loader (unw may be NULL). */
int attach__write_maps(struct spool_writer *w, struct unwload *unw, uint32_t tgid, uint64_t ts);

#endif
