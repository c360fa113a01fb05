#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fdio.h"
#include "common/log.h"
#include "record/child.h"

static void child_fail(int fd, int stage, int err, int status)
{
	struct child_failure f = { .stage = stage, .err = err };

	if (write(fd, &f, sizeof(f)) < 0) {
		/* nothing left to tell anyone */
	}
	_exit(status);
}

/* What the caller gave probex, restored in the command before exec. */
static const int saved_limits[] = { RLIMIT_MEMLOCK, RLIMIT_NOFILE, RLIMIT_CORE, RLIMIT_STACK };
static struct {
	bool valid;
	bool have[sizeof(saved_limits) / sizeof(saved_limits[0])];
	struct rlimit rl[sizeof(saved_limits) / sizeof(saved_limits[0])];
	bool ignored[NSIG];
} caller;

void child__save_caller(void)
{
	struct sigaction sa;

	for (size_t i = 0; i < sizeof(saved_limits) / sizeof(saved_limits[0]); i++)
		caller.have[i] = !getrlimit(saved_limits[i], &caller.rl[i]);
	for (int sig = 1; sig < NSIG; sig++)
		caller.ignored[sig] = !sigaction(sig, NULL, &sa) && sa.sa_handler == SIG_IGN;
	caller.valid = true;
}

/* Back to the caller's limits and dispositions: handlers probex installed (none today)
 * would be reset by exec anyway; what probex set to ignored or default is not. */
static int restore_caller(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, ign = { .sa_handler = SIG_IGN };

	if (!caller.valid)
		return 0;
	for (size_t i = 0; i < sizeof(saved_limits) / sizeof(saved_limits[0]); i++)
		if (caller.have[i] && setrlimit(saved_limits[i], &caller.rl[i]))
			return errno;
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, caller.ignored[sig] ? &ign : &dfl, NULL);
	return 0;
}

static void child_run(int report_fd, char *const argv[], const struct priv_target *priv,
		      const sigset_t *mask, pid_t probex)
{
	int err;

	/* Limits first, while still root: lowering a hard limit needs no privilege, but
	 * raising one (never needed here) would. */
	err = restore_caller();
	if (err)
		child_fail(report_fd, 1, err, 126);
	sigprocmask(SIG_SETMASK, mask, NULL);
	err = priv__drop(priv);
	if (err)
		child_fail(report_fd, 1, -err, 126);
	/* Until probex has it in the traced map (it resumes us after that), the guardian
	 * cannot stop us: die with probex instead of staying stopped.  Set after the uid
	 * change, which clears it; then undone, so the command does not inherit it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != probex)
		_exit(127);
	raise(SIGSTOP);
	prctl(PR_SET_PDEATHSIG, 0);
	execvp(argv[0], argv);
	child_fail(report_fd, 2, errno, 127);
}

int child__spawn(struct child *c, char *const argv[], const struct priv_target *priv,
		 const sigset_t *child_mask)
{
	int fds[2];
	pid_t pid, self = getpid();

	c->pid = -1;
	c->report_fd = -1;
	fflush(NULL);
	pid = fdio__pipe_fork(fds);
	if (pid < 0)
		return pid;
	if (pid == 0) {
		close(fds[0]);
		child_run(fds[1], argv, priv, child_mask, self);
	}
	close(fds[1]);
	c->pid = pid;
	c->report_fd = fds[0];
	return 0;
}

int child__wait_stopped(struct child *c, const struct priv_target *priv)
{
	int st;

	while (waitpid(c->pid, &st, WUNTRACED) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	if (!WIFSTOPPED(st)) {
		struct child_failure f;

		c->pid = -1;	/* reaped */
		if (read(c->report_fd, &f, sizeof(f)) == sizeof(f) && f.stage == 1)
			log__error("cannot become uid %u before running the command: %s", priv->uid,
				   strerror(f.err));
		else
			log__error("the command's process ended before it could be traced (status 0x%x)", st);
		close(c->report_fd);
		c->report_fd = -1;
		return -ECHILD;
	}
	return 0;
}

int child__resume(struct child *c, const char *cmd)
{
	struct child_failure f;
	ssize_t n;

	if (kill(c->pid, SIGCONT))
		return -errno;
	do
		n = read(c->report_fd, &f, sizeof(f));
	while (n < 0 && errno == EINTR);
	close(c->report_fd);
	c->report_fd = -1;
	if (n != sizeof(f))
		return 0;	/* EOF: exec succeeded (the pipe is close-on-exec) */
	if (f.stage == 1) {
		log__error("cannot drop privileges before running %s: %s", cmd, strerror(f.err));
		return 126;
	}
	log__error("cannot run %s: %s", cmd, strerror(f.err));
	return 127;
}

void child__kill(struct child *c)
{
	if (c->pid <= 0)
		return;
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
		;
	c->pid = -1;
	if (c->report_fd >= 0)
		close(c->report_fd);
	c->report_fd = -1;
}

static int check_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	/* AT_EACCESS: judged by the (file system) identity the caller acts with, the user's
	 * under sudo, so root-only paths are neither run nor revealed. */
	return faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) ? -errno : 0;
}

int child__find_command(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[4096];
	int err = -ENOENT;

	if (!cmd[0])
		return -ENOENT;
	if (strchr(cmd, '/'))
		return check_exec(cmd);
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchrnul(path, ':');
		int len = (int)(end - path), e;

		snprintf(buf, sizeof(buf), "%.*s%s%s", len, path, len ? "/" : "", cmd);
		e = check_exec(buf);
		if (!e)
			return 0;
		if (e == -EACCES)
			err = e;	/* remember, as execvp does, but keep looking */
		path = *end ? end + 1 : end;
	}
	return err;
}
