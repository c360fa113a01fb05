#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>

#include "record/syscall_select.h"
#include "syscall_names.h"
#include "trace/syscalls.h"

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

_Static_assert(PROBEX_SYSCALL_MAX == TRACE_SYSCALL_MAX, "the kernel records the syscalls a trace names");

/* What the kernel side reads at enter, from the syscall's facts. */
static uint8_t sysf_of(uint8_t facts)
{
	return (facts & SYSCALL_PATH0 ? SYSF_PATH0 : 0) | (facts & SYSCALL_PATH1 ? SYSF_PATH1 : 0) |
	       (facts & SYSCALL_IOV ? SYSF_IOV : 0) | (facts & SYSCALL_MSG ? SYSF_MSG : 0) |
	       (facts & SYSCALL_FORK ? SYSF_FORK : 0);
}

static void set_on(uint8_t flags[PROBEX_SYSCALL_MAX], unsigned int nr)
{
	struct syscall_args a;
	uint8_t f;

	syscall__args(nr, &a, &f);
	flags[nr] = SYSF_ON | sysf_of(f);
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

/* The kernel's calls from a probe's trampoline (a uretprobe's return, an optimised uprobe):
 * not the program's own, so `all` leaves them out; named, they are recorded. */
static bool probe_trampoline(unsigned int nr)
{
	const char *name = syscall__name(nr);

	return name && (!strcmp(name, "uretprobe") || !strcmp(name, "uprobe"));
}

/* One item of the list: a class, `all`, or a name. */
static int add_item(const char *item, uint8_t flags[PROBEX_SYSCALL_MAX])
{
	int nr;

	if (!strcmp(item, "all") || !strcmp(item, "%all")) {
		for (unsigned int i = 0; i < PROBEX_SYSCALL_MAX; i++)
			if (!probe_trampoline(i))
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
