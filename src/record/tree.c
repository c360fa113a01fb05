#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "common/log.h"
#include "record/probes.h"
#include "record/tree.h"

int tree__init(struct tree *t)
{
	*t = (struct tree){ .root = -1 };
	return prctl(PR_SET_CHILD_SUBREAPER, 1) ? -errno : 0;
}

void tree__reap(struct tree *t)
{
	int st;
	pid_t pid;

	while ((pid = waitpid(-1, &st, WNOHANG)) != 0) {
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				t->empty = true;
			return;
		}
		if (pid == t->root) {
			t->root_done = true;
			t->root_status = st;
		}
	}
}

static void signal_all(struct tree *t, struct probes *p, int sig)
{
	uint32_t pids[4096];
	int n = p ? probes__traced_pids(p, pids, 4096) : 0;

	if (t->root > 0 && !t->root_done)
		kill(t->root, sig);
	for (int i = 0; i < n; i++) {
		kill((pid_t)pids[i], sig);
		if (sig == SIGTERM)
			kill((pid_t)pids[i], SIGCONT);
	}
	if (t->root > 0 && !t->root_done && sig == SIGTERM)
		kill(t->root, SIGCONT);
}

void tree__stop(struct tree *t, struct probes *p, uint64_t now_ns, uint64_t grace_ns)
{
	if (t->empty)
		return;
	if (t->stop_stage == 0) {
		t->stop_stage = 1;
		t->kill_deadline_ns = now_ns + grace_ns;
		log__info("stopping the traced processes (SIGTERM; SIGKILL in %.0f s or on a second Ctrl-C)",
			  grace_ns / 1e9);
		signal_all(t, p, SIGTERM);
	} else if (t->stop_stage == 1) {
		t->stop_stage = 2;
		log__info("killing the traced processes (SIGKILL)");
		signal_all(t, p, SIGKILL);
	} else {
		signal_all(t, p, SIGKILL);
	}
}

int tree__exit_status(const struct tree *t)
{
	if (!t->root_done)
		return 1;
	if (WIFEXITED(t->root_status))
		return WEXITSTATUS(t->root_status);
	if (WIFSIGNALED(t->root_status))
		return 128 + WTERMSIG(t->root_status);
	return 1;
}
