#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/fdio.h"
#include "record/guardian.h"

static void guardian_run(int rfd, int map_fd)
{
	char c = 0;
	ssize_t n;

	prctl(PR_SET_NAME, "probex-guard");
	/* Ctrl-C at the terminal is for probex, not for us. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	do
		n = read(rfd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1 && c == 'D')
		_exit(0);
	/* probex died: kill every traced process until none is left (new children are
	 * added to the map by the fork program as long as we hold it open). */
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
	_exit(0);
}

int guardian__start(int map_fd)
{
	int fds[2], st;
	pid_t pid;

	pid = fdio__pipe_fork(fds);
	if (pid < 0)
		return pid;
	if (pid == 0) {
		/* Double fork: the guardian is re-parented to init, so it is neither waited
		 * for as part of the traced tree nor killed with it. */
		close(fds[1]);
		setsid();
		if (fork() == 0)
			guardian_run(fds[0], map_fd);
		_exit(0);
	}
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return fds[1];
}

void guardian__release(int fd)
{
	if (fd < 0)
		return;
	if (write(fd, "D", 1) < 0) {
		/* the guardian is gone already: nothing to release */
	}
	close(fd);
}
