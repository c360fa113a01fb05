/* The traced command: started stopped before exec, resumed once tracing is armed. */
#ifndef PROBEX_RECORD_CHILD_H
#define PROBEX_RECORD_CHILD_H

#include <signal.h>
#include <sys/types.h>

#include "common/priv.h"

struct child {
	pid_t pid;
	int report_fd;	/* read end: EOF at a successful exec, else a struct child_failure */
};

/* Where the child failed before running the command. */
struct child_failure {
	int stage;	/* 1: dropping privileges, 2: exec */
	int err;	/* errno */
};

/* Remember what the command must start with, before probex changes it: the resource
 * limits (libbpf raises RLIMIT_MEMLOCK) and the signal dispositions (what the caller
 * ignores, the command ignores too).  Call once, first thing. */
void child__save_caller(void);

/* Fork; in the child restore what child__save_caller saw and the signal mask
 * `child_mask`, become the invoking user (when priv->valid), stop, then exec argv[0]
 * from PATH once resumed.  Returns at once: the child stops on its own, and dies with
 * probex until it is resumed. */
int child__spawn(struct child *c, char *const argv[], const struct priv_target *priv,
		 const sigset_t *child_mask);
/* Wait until the child is stopped.  0, or -ECHILD (printed) when it ended instead. */
int child__wait_stopped(struct child *c, const struct priv_target *priv);

/* SIGCONT, then wait for the exec outcome.  Returns 0 when the command runs, or the
 * failure (printed) as a positive exit status: 127 exec failed, 126 privilege drop failed. */
int child__resume(struct child *c, const char *cmd);

/* Kill (SIGKILL) and reap after a setup failure. */
void child__kill(struct child *c);

/* PATH lookup as execvp would do it; 0 or negative errno (-ENOENT, -EACCES). */
int child__find_command(const char *cmd);

#endif
