#include <string.h>

#include "syscall_names.h"
#include "trace/syscalls.h"

const char *syscall__name(unsigned int nr)
{
	return nr < SYSCALL_NAMES_COUNT ? syscall_names_gen[nr] : NULL;
}

int syscall__nr(const char *name)
{
	for (int i = 0; i < SYSCALL_NAMES_COUNT; i++)
		if (syscall_names_gen[i] && !strcmp(syscall_names_gen[i], name))
			return i < TRACE_SYSCALL_MAX ? i : -1;
	return -1;
}

/* Which arguments mean what, by name (argument indexes; -1 none).  Only calls users look
 * into for a file, a byte count or a lock: everything else is recorded undecoded. */
struct decode {
	const char *name;
	int8_t fd, count, offset, futex_op;
	uint8_t facts;	/* SYSCALL_* */
};

#define B SYSCALL_RET_BYTES
#define FD_COUNT(n) { n, 0, 2, -1, -1, B }
#define FD_COUNT_OFF(n) { n, 0, 2, 3, -1, B }
#define FD_IOV(n, off) { n, 0, -1, off, -1, SYSCALL_IOV | B }
#define FD_ONLY(n) { n, 0, -1, -1, -1, 0 }
#define PATH0(n) { n, -1, -1, -1, -1, SYSCALL_PATH0 }
#define AT_PATH1(n) { n, 0, -1, -1, -1, SYSCALL_PATH1 }
#define BYTES(n) { n, -1, -1, -1, -1, B }

static const struct decode decodes[] = {
	BYTES("read"), BYTES("write"),
	FD_COUNT_OFF("pread64"), FD_COUNT_OFF("pwrite64"),
	FD_IOV("readv", -1), FD_IOV("writev", -1), FD_IOV("preadv", 3), FD_IOV("pwritev", 3),
	FD_IOV("preadv2", 3), FD_IOV("pwritev2", 3),
	FD_COUNT("sendto"), FD_COUNT("recvfrom"), FD_COUNT("getdents64"),
	{ "sendmsg", 0, -1, -1, -1, SYSCALL_MSG | B }, { "recvmsg", 0, -1, -1, -1, SYSCALL_MSG | B },
	{ "lseek", 0, -1, 1, -1, 0 },
	{ "sendfile", 0, 3, -1, -1, B },
	BYTES("copy_file_range"), BYTES("splice"), BYTES("tee"), BYTES("vmsplice"),
	FD_ONLY("close"), FD_ONLY("fstat"), FD_ONLY("ioctl"), FD_ONLY("fcntl"), FD_ONLY("dup"),
	FD_ONLY("dup2"), FD_ONLY("dup3"), FD_ONLY("ftruncate"), FD_ONLY("flock"),
	FD_ONLY("fchmod"), FD_ONLY("fchown"), FD_ONLY("fstatfs"), FD_ONLY("fchdir"),
	FD_ONLY("connect"), FD_ONLY("bind"), FD_ONLY("listen"), FD_ONLY("accept"),
	FD_ONLY("accept4"), FD_ONLY("shutdown"), FD_ONLY("getsockopt"), FD_ONLY("setsockopt"),
	FD_ONLY("getsockname"), FD_ONLY("getpeername"), FD_ONLY("epoll_ctl"),
	FD_ONLY("epoll_wait"), FD_ONLY("epoll_pwait"), FD_ONLY("epoll_pwait2"),
	FD_ONLY("sync_file_range"), FD_ONLY("fallocate"), FD_ONLY("fadvise64"),
	FD_ONLY("close_range"),
	PATH0("open"), PATH0("creat"), PATH0("execve"), PATH0("stat"), PATH0("lstat"),
	PATH0("access"), PATH0("unlink"), PATH0("rmdir"), PATH0("mkdir"), PATH0("readlink"),
	PATH0("chdir"), PATH0("truncate"), PATH0("rename"), PATH0("chmod"), PATH0("chown"),
	PATH0("lchown"), PATH0("statfs"), PATH0("link"), PATH0("symlink"), PATH0("chroot"),
	PATH0("mknod"), PATH0("utime"), PATH0("utimes"),
	AT_PATH1("openat"), AT_PATH1("openat2"), AT_PATH1("execveat"), AT_PATH1("newfstatat"),
	AT_PATH1("statx"), AT_PATH1("faccessat"), AT_PATH1("faccessat2"), AT_PATH1("unlinkat"),
	AT_PATH1("mkdirat"), AT_PATH1("readlinkat"), AT_PATH1("renameat"),
	AT_PATH1("renameat2"), AT_PATH1("fchmodat"), AT_PATH1("fchmodat2"),
	AT_PATH1("fchownat"), AT_PATH1("utimensat"), AT_PATH1("linkat"), AT_PATH1("mknodat"),
	AT_PATH1("futimesat"),
	{ "futex", -1, -1, -1, 1, 0 },
	{ "clone", -1, -1, -1, -1, SYSCALL_FORK }, { "clone3", -1, -1, -1, -1, SYSCALL_FORK },
	{ "fork", -1, -1, -1, -1, SYSCALL_FORK }, { "vfork", -1, -1, -1, -1, SYSCALL_FORK },
};

static const struct decode *decode_of(const char *name)
{
	for (size_t i = 0; name && i < sizeof(decodes) / sizeof(decodes[0]); i++)
		if (!strcmp(decodes[i].name, name))
			return &decodes[i];
	return NULL;
}

void syscall__args(unsigned int nr, struct syscall_args *a, uint8_t *facts)
{
	const struct decode *d = decode_of(syscall__name(nr));

	*a = (struct syscall_args){ -1, -1, -1, -1 };
	*facts = 0;
	if (!d)
		return;
	*a = (struct syscall_args){ d->fd, d->count, d->offset, d->futex_op };
	*facts = d->facts;
}

bool syscall__ret_is_bytes(const char *name)
{
	const struct decode *d = decode_of(name);

	return d && (d->facts & SYSCALL_RET_BYTES);
}

/* Calls that move data to or from a file, pipe or socket, or sync it: read/write and their
 * positional and vector forms, send/recv, the zero-copy ones, the syncs, and AIO/io_uring
 * submission. */
static const char *const io_calls[] = {
	"read", "write", "pread64", "pwrite64", "readv", "writev", "preadv", "pwritev", "preadv2",
	"pwritev2", "sendfile", "splice", "tee", "vmsplice", "copy_file_range", "sendto",
	"recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "fsync", "fdatasync",
	"sync_file_range", "sync", "syncfs", "msync", "io_submit", "io_getevents", "io_pgetevents",
	"io_uring_enter", "io_uring",
};

bool syscall__is_io(const char *name)
{
	for (size_t i = 0; name && i < sizeof(io_calls) / sizeof(io_calls[0]); i++)
		if (!strcmp(io_calls[i], name))
			return true;
	return false;
}
