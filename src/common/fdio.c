#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "common/fdio.h"

enum fdio_op { FDIO_WRITE, FDIO_PWRITE, FDIO_PREAD };

static int transfer(enum fdio_op op, int fd, void *p, size_t n, uint64_t off)
{
	char *c = p;

	while (n) {
		ssize_t k;

		switch (op) {
		case FDIO_WRITE:
			k = write(fd, c, n);
			break;
		case FDIO_PWRITE:
			k = pwrite(fd, c, n, (off_t)off);
			break;
		default:
			k = pread(fd, c, n, (off_t)off);
			break;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		c += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

int fdio__write_all(int fd, const void *p, size_t n)
{
	return transfer(FDIO_WRITE, fd, (void *)p, n, 0);
}

int fdio__pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	return transfer(FDIO_PWRITE, fd, (void *)p, n, off);
}

int fdio__pread_all(int fd, void *p, size_t n, uint64_t off)
{
	return transfer(FDIO_PREAD, fd, p, n, off);
}

int fdio__pipe_fork(int fds[2])
{
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(fds[0]);
		close(fds[1]);
		return err;
	}
	return pid;
}
