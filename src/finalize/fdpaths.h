/* The path each file descriptor of a process was opened with, followed through the rows
 * in time order (open/openat/creat, dup*, fcntl F_DUPFD, close, close_range, fork, exec)
 * and seeded from /proc/PID/fd at the start: the fd_path column. */
#ifndef PROBEX_FINALIZE_FDPATHS_H
#define PROBEX_FINALIZE_FDPATHS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/hmap.h"
#include "trace/syscalls.h"

/* The descriptors a process ever had in the map: exec, exit and fork visit these only. */
struct fdlist {
	uint32_t *fd;
	uint32_t n, cap;
};

struct fdpaths {
	struct hmap map;	/* (tgid << 32 | fd) → file id | FDP_CLOEXEC, or FDP_CLOSED */
	struct hmap by_tgid;	/* tgid → index in lists */
	struct fdlist *lists;
	uint32_t nlists, cap_lists;
	/* Per syscall number: what its exit does (fdpaths.c), its descriptor argument (-1:
	 * none, -2: mmap's, unless anonymous) and the label of an anonymous one it makes. */
	int8_t kind[TRACE_SYSCALL_MAX];
	int8_t fd_arg[TRACE_SYSCALL_MAX];
	const char *anon[TRACE_SYSCALL_MAX];
};

void fdpaths__init(struct fdpaths *f);
void fdpaths__free(struct fdpaths *f);
/* The file id tgid's fd was opened with, or -1. */
int64_t fdpaths__get(const struct fdpaths *f, uint32_t tgid, int64_t fd);
/* fd of tgid now names file id (cloexec: closed at exec).  0 or -ENOMEM. */
int fdpaths__set(struct fdpaths *f, uint32_t tgid, int64_t fd, uint32_t id, bool cloexec);
/* The fd a syscall's exit creates and what it names: the path argument (path_id), a
 * copy of another fd, or an anonymous kind (*label, to intern and set).  0 or -ENOMEM. */
int fdpaths__exit(struct fdpaths *f, uint32_t tgid, unsigned int nr, const uint64_t *args,
		  int64_t ret, int64_t path_id, const char **label);
/* A new process starts with its parent's descriptors; exec closes the cloexec ones; the
 * last thread's exit closes them all. */
int fdpaths__fork(struct fdpaths *f, uint32_t parent, uint32_t child);
void fdpaths__exec(struct fdpaths *f, uint32_t tgid);
void fdpaths__gone(struct fdpaths *f, uint32_t tgid);
/* The descriptor argument of syscall nr (args as recorded), or -1. */
int64_t fdpaths__fd_arg(const struct fdpaths *f, unsigned int nr, const uint64_t *args);

#endif
