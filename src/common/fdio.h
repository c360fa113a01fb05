/* Whole-buffer reads and writes on a file descriptor: short transfers are continued and
 * EINTR retried, so callers see all or an error.  Returns 0 or a negative errno (-EIO when
 * the file ends or the device accepts nothing). */
#ifndef PROBEX_COMMON_FDIO_H
#define PROBEX_COMMON_FDIO_H

#include <stddef.h>
#include <stdint.h>

int fdio__write_all(int fd, const void *p, size_t n);
int fdio__pwrite_all(int fd, const void *p, size_t n, uint64_t off);
int fdio__pread_all(int fd, void *p, size_t n, uint64_t off);

/* A close-on-exec pipe in fds, then fork(): the child's pid (0 in the child), or a
 * negative errno with neither end left open. */
int fdio__pipe_fork(int fds[2]);

#endif
