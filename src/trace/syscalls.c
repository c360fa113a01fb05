#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
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
			return i < PROBEX_SYSCALL_MAX ? i : -1;
	return -1;
}

/* Which arguments mean what, by name (argument indexes; -1 none).  Only calls users look
 * into for a file, a byte count or a lock: everything else is recorded undecoded. */
struct decode {
	const char *name;
	int8_t fd, count, offset, futex_op;
	uint8_t flags;	/* SYSF_PATH0/1, SYSF_IOV, SYSF_MSG, SYSF_FORK */
};

#define FD_COUNT(n) { n, 0, 2, -1, -1, 0 }
#define FD_COUNT_OFF(n) { n, 0, 2, 3, -1, 0 }
#define FD_IOV(n, off) { n, 0, -1, off, -1, SYSF_IOV }
#define FD_ONLY(n) { n, 0, -1, -1, -1, 0 }
#define PATH0(n) { n, -1, -1, -1, -1, SYSF_PATH0 }
#define AT_PATH1(n) { n, 0, -1, -1, -1, SYSF_PATH1 }

static const struct decode decodes[] = {
	FD_COUNT_OFF("pread64"), FD_COUNT_OFF("pwrite64"),
	FD_IOV("readv", -1), FD_IOV("writev", -1), FD_IOV("preadv", 3), FD_IOV("pwritev", 3),
	FD_IOV("preadv2", 3), FD_IOV("pwritev2", 3),
	FD_COUNT("sendto"), FD_COUNT("recvfrom"), FD_COUNT("getdents64"),
	{ "sendmsg", 0, -1, -1, -1, SYSF_MSG }, { "recvmsg", 0, -1, -1, -1, SYSF_MSG },
	{ "lseek", 0, -1, 1, -1, 0 },
	{ "sendfile", 0, 3, -1, -1, 0 },
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
	{ "clone", -1, -1, -1, -1, SYSF_FORK }, { "clone3", -1, -1, -1, -1, SYSF_FORK },
	{ "fork", -1, -1, -1, -1, SYSF_FORK }, { "vfork", -1, -1, -1, -1, SYSF_FORK },
};

void syscall__args(unsigned int nr, struct syscall_args *a, uint8_t *flags)
{
	const char *name = syscall__name(nr);

	*a = (struct syscall_args){ -1, -1, -1, -1 };
	*flags = 0;
	for (size_t i = 0; name && i < sizeof(decodes) / sizeof(decodes[0]); i++) {
		if (strcmp(decodes[i].name, name))
			continue;
		*a = (struct syscall_args){ decodes[i].fd, decodes[i].count, decodes[i].offset,
					    decodes[i].futex_op };
		*flags = decodes[i].flags;
		return;
	}
}

/* Classes in strace's sense (its -e trace=%CLASS), as lists of names.  A name the
 * installed headers do not know is skipped. */
struct sys_class {
	const char *name;
	const char *members;
};

static const struct sys_class classes[] = {
	{ "reference", "read write mmap munmap brk fsync fdatasync io_uring_setup io_uring_enter "
		       "io_uring_register" },
	{ "%file", "open openat openat2 creat execve execveat stat lstat newfstatat statx access "
		   "faccessat faccessat2 unlink unlinkat rmdir mkdir mkdirat rename renameat "
		   "renameat2 link linkat symlink symlinkat readlink readlinkat chdir chroot "
		   "chmod fchmodat fchmodat2 chown lchown fchownat truncate utime utimes "
		   "utimensat futimesat mknod mknodat mount umount2 swapon swapoff statfs "
		   "getxattr lgetxattr setxattr lsetxattr listxattr llistxattr removexattr "
		   "lremovexattr inotify_add_watch fanotify_mark name_to_handle_at acct "
		   "pivot_root quotactl uselib getcwd" },
	{ "%net", "socket socketpair bind listen accept accept4 connect getsockname getpeername "
		  "sendto recvfrom sendmsg recvmsg sendmmsg recvmmsg shutdown setsockopt "
		  "getsockopt" },
	{ "%io", "read write pread64 pwrite64 readv writev preadv pwritev preadv2 pwritev2 "
		 "sendfile splice tee vmsplice copy_file_range sendto recvfrom sendmsg recvmsg "
		 "sendmmsg recvmmsg io_uring_enter io_submit io_getevents io_pgetevents fsync "
		 "fdatasync sync_file_range lseek getdents64" },
	{ "%desc", "read write open close fstat lseek ioctl pread64 pwrite64 readv writev "
		   "preadv pwritev preadv2 pwritev2 pipe pipe2 select pselect6 poll ppoll dup "
		   "dup2 dup3 fcntl flock fsync fdatasync ftruncate getdents64 fchdir fchmod "
		   "fchown fstatfs openat openat2 creat epoll_create epoll_create1 epoll_ctl "
		   "epoll_wait epoll_pwait epoll_pwait2 eventfd eventfd2 signalfd signalfd4 "
		   "timerfd_create timerfd_settime timerfd_gettime inotify_init inotify_init1 "
		   "memfd_create close_range sendfile splice tee copy_file_range fallocate "
		   "fadvise64 mmap newfstatat statx faccessat faccessat2 unlinkat mkdirat "
		   "readlinkat renameat renameat2 fchmodat fchownat linkat symlinkat mknodat "
		   "utimensat execveat io_uring_setup io_uring_enter io_uring_register" },
	{ "%memory", "brk mmap munmap mremap mprotect msync madvise mlock mlock2 munlock "
		     "mlockall munlockall mincore pkey_mprotect remap_file_pages mbind "
		     "set_mempolicy get_mempolicy migrate_pages move_pages process_madvise "
		     "map_shadow_stack mseal" },
	{ "%process", "clone clone3 fork vfork execve execveat exit exit_group wait4 waitid "
		      "kill tkill tgkill rt_sigqueueinfo rt_tgsigqueueinfo pidfd_open "
		      "pidfd_send_signal" },
	{ "%signal", "rt_sigaction rt_sigprocmask rt_sigreturn rt_sigpending rt_sigtimedwait "
		     "rt_sigsuspend rt_sigqueueinfo rt_tgsigqueueinfo sigaltstack signalfd "
		     "signalfd4 kill tkill tgkill pause pidfd_send_signal" },
};

static void set_on(uint8_t flags[PROBEX_SYSCALL_MAX], unsigned int nr)
{
	struct syscall_args a;
	uint8_t f;

	syscall__args(nr, &a, &f);
	flags[nr] = SYSF_ON | f;
}

static void add_class(const struct sys_class *c, uint8_t flags[PROBEX_SYSCALL_MAX])
{
	const char *p = c->members;

	while (*p) {
		char name[64];
		size_t n = strcspn(p, " ");
		int nr;

		if (n && n < sizeof(name)) {
			memcpy(name, p, n);
			name[n] = 0;
			nr = syscall__nr(name);
			if (nr >= 0)
				set_on(flags, (unsigned int)nr);
		}
		p += n;
		p += strspn(p, " ");
	}
}

/* One item of the list: a class, `all`, or a name. */
static int add_item(const char *item, uint8_t flags[PROBEX_SYSCALL_MAX])
{
	int nr;

	if (!strcmp(item, "all") || !strcmp(item, "%all")) {
		for (unsigned int i = 0; i < PROBEX_SYSCALL_MAX; i++)
			set_on(flags, i);
		return 0;
	}
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		if (!strcmp(item, classes[i].name)) {
			add_class(&classes[i], flags);
			return 0;
		}
	}
	nr = syscall__nr(item);
	if (nr < 0)
		return -EINVAL;
	set_on(flags, (unsigned int)nr);
	return 0;
}

int syscalls__parse(const char *list, uint8_t flags[PROBEX_SYSCALL_MAX], char *bad, size_t badlen)
{
	memset(flags, 0, PROBEX_SYSCALL_MAX);
	if (!*list) {
		snprintf(bad, badlen, "(empty list)");
		return -EINVAL;
	}
	while (*list) {
		char item[64];
		size_t n = strcspn(list, ",");

		if (!n || n >= sizeof(item) || (memcpy(item, list, n), item[n] = 0, add_item(item, flags))) {
			snprintf(bad, badlen, "%.*s", (int)n, list);
			return -EINVAL;
		}
		list += n;
		if (*list == ',' && !*++list) {
			snprintf(bad, badlen, "(empty item)");
			return -EINVAL;
		}
	}
	return 0;
}

void syscalls__print_valid(void *file)
{
	FILE *f = file;
	int col = 0;

	fprintf(f, "valid classes: all reference");
	for (size_t i = 1; i < sizeof(classes) / sizeof(classes[0]); i++)
		fprintf(f, " %s", classes[i].name);
	fprintf(f, "\nvalid names:");
	for (int i = 0; i < SYSCALL_NAMES_COUNT && i < PROBEX_SYSCALL_MAX; i++) {
		if (!syscall_names_gen[i])
			continue;
		if (col > 64) {
			fprintf(f, "\n ");
			col = 0;
		}
		col += fprintf(f, " %s", syscall_names_gen[i]);
	}
	fprintf(f, "\n");
}
