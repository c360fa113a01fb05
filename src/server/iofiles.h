/* io_statistics' files: per I/O operation, the files its calls went to (fd_path), read
 * from the trace's exit rows in the window. */
#ifndef PROBEX_SERVER_IOFILES_H
#define PROBEX_SERVER_IOFILES_H

#include "server/api.h"

struct io_file {
	char *op;		/* syscall name (read, pwrite64, ...) */
	char *path;
	uint64_t ops, bytes, total_ns;
};

struct io_files {
	struct io_file *f;	/* by op, then total_ns descending */
	uint64_t n;
};

/* The window's files (none in files without fd_path).  0, or an HTTP status with the
 * request's error set. */
int io_files__read(struct request *rq, const struct window *w, struct io_files *out);
/* Write op's files as a JSON array. */
void io_files__json(struct json *j, const struct io_files *f, const char *op);
void io_files__free(struct io_files *f);

#endif
