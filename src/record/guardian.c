#include <bpf/bpf.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record/guardian.h"

/* The map and the links to hold, sent with an 'A' byte ('L': the last one is
 * cgroup.freeze, *freeze_fd).  -1 when probex never sent them (it ended or died while
 * loading): there is nothing to stop then. */
static int guardian_recv_map(int sock, int *freeze_fd)
{
	char buf[CMSG_SPACE(sizeof(int) * (GUARDIAN_MAX_FDS + 1))], c = 0;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
			      .msg_controllen = sizeof(buf) };
	struct cmsghdr *cm;
	ssize_t n;

	do
		n = recvmsg(sock, &msg, 0);
	while (n < 0 && errno == EINTR);
	cm = CMSG_FIRSTHDR(&msg);
	if (n != 1 || (c != 'A' && c != 'L') || !cm || cm->cmsg_type != SCM_RIGHTS ||
	    cm->cmsg_len < CMSG_LEN(sizeof(int)))
		return -1;
	if (c == 'L' && cm->cmsg_len >= CMSG_LEN(2 * sizeof(int)))
		*freeze_fd = ((int *)CMSG_DATA(cm))[(cm->cmsg_len - CMSG_LEN(0)) / sizeof(int) - 1];
	/* The other descriptors stay open (held) until we exit. */
	return ((int *)CMSG_DATA(cm))[0];
}

static void guardian_kill_tree(int map_fd)
{
	/* Kill every traced process until none is left (new children are added to the map
	 * by the fork program as long as we hold its link). */
	for (int round = 0; round < 100; round++) {
		uint32_t key, next, *prev = NULL;
		int alive = 0;

		while (bpf_map_get_next_key(map_fd, prev, &next) == 0) {
			if (kill((pid_t)next, SIGKILL) == 0)
				alive++;
			else if (errno == ESRCH)
				bpf_map_delete_elem(map_fd, &next);
			key = next;
			prev = &key;
		}
		if (!alive)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
	}
}

/* Until there is something to read on the socket (1), or probex is gone (0).  Its end of
 * the socket is not enough to tell: a command forked but not yet exec'd holds a copy. */
static int guardian_wait(int sock, int pidfd)
{
	struct pollfd p[2] = { { .fd = sock, .events = POLLIN }, { .fd = pidfd, .events = POLLIN } };

	while (poll(p, pidfd >= 0 ? 2 : 1, -1) < 0)
		if (errno != EINTR)
			return 0;
	return p[0].revents ? 1 : 0;
}

/* --lossless's cgroup, empty once the tree is killed: removed (its path from the freeze
 * file's).  The tree's last processes are reaped by others, late on a loaded machine:
 * tries for up to 5 s. */
static void guardian_remove_cgroup(int freeze_fd)
{
	char link[32] = "/proc/self/fd/", digits[12], path[512];
	int i = 14, nd = 0, v = freeze_fd;
	ssize_t n;

	do
		digits[nd++] = (char)('0' + v % 10);
	while ((v /= 10) && nd < 11);
	while (nd)
		link[i++] = digits[--nd];
	link[i] = 0;
	n = readlink(link, path, sizeof(path) - 1);
	while (n > 0 && path[n - 1] != '/')
		n--;
	if (n <= 1)
		return;
	path[n - 1] = 0;
	for (int round = 0; round < 250 && rmdir(path) && errno == EBUSY; round++)
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
}

/* Only async-signal-safe calls: this runs in a fork of a threaded process. */
static void guardian_run(int sock, int pidfd)
{
	int map_fd, freeze_fd = -1;
	char c = 0;
	ssize_t n;

	prctl(PR_SET_NAME, "probex-guard");
	/* Ctrl-C at the terminal is for probex, not for us. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	map_fd = guardian_wait(sock, pidfd) ? guardian_recv_map(sock, &freeze_fd) : -1;
	if (map_fd < 0)
		_exit(0);
	n = 0;
	if (guardian_wait(sock, pidfd))
		do
			n = read(sock, &c, 1);
		while (n < 0 && errno == EINTR);
	if (n == 1 && c == 'D')
		_exit(0);
	/* A frozen task takes no signal but SIGKILL, and leaves no frozen task behind. */
	if (freeze_fd >= 0 && pwrite(freeze_fd, "0", 1, 0) != 1) {
		/* nothing more to do: SIGKILL ends frozen tasks too */
	}
	guardian_kill_tree(map_fd);
	if (freeze_fd >= 0)
		guardian_remove_cgroup(freeze_fd);
	_exit(0);
}

int guardian__start(void)
{
	/* Without pidfds (before Linux 5.3) only the socket's end-of-file says probex died. */
	int sv[2], st, pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		st = -errno;
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		st = -errno;
		close(sv[0]);
		close(sv[1]);
		goto fail;
	}
	if (pid == 0) {
		/* Double fork: the guardian is re-parented to init, so it is neither waited
		 * for as part of the traced tree nor killed with it. */
		close(sv[1]);
		setsid();
		if (fork() == 0)
			guardian_run(sv[0], pidfd);
		_exit(0);
	}
	close(sv[0]);
	if (pidfd >= 0)
		close(pidfd);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return sv[1];
fail:
	if (pidfd >= 0)
		close(pidfd);
	return st;
}

int guardian__arm(int fd, const int *fds, int n, int freeze_fd)
{
	char buf[CMSG_SPACE(sizeof(int) * (GUARDIAN_MAX_FDS + 1))] = { 0 }, c = freeze_fd >= 0 ? 'L' : 'A';
	int all[GUARDIAN_MAX_FDS + 1];
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
			      .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	if (fd < 0 || n < 1 || n > GUARDIAN_MAX_FDS)
		return -EINVAL;
	memcpy(all, fds, sizeof(int) * (size_t)n);
	if (freeze_fd >= 0)
		all[n++] = freeze_fd;
	msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
	memcpy(CMSG_DATA(cm), all, sizeof(int) * (size_t)n);
	return sendmsg(fd, &msg, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

void guardian__release(int fd)
{
	if (fd < 0)
		return;
	if (send(fd, "D", 1, MSG_NOSIGNAL) < 0) {
		/* the guardian is gone already: nothing to release */
	}
	close(fd);
}
