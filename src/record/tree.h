/* The traced process tree as probex's children: reaping, and stopping it on request.
 *
 * probex is a child subreaper, so descendants whose parents exit are re-parented to it;
 * "no children left" then means the whole tree is gone. */
#ifndef PROBEX_RECORD_TREE_H
#define PROBEX_RECORD_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct probes;

struct tree {
	pid_t root;
	bool root_done;
	int root_status;	/* wait(2) status of the root command */
	bool empty;		/* no children left */
	int stop_stage;		/* 0 running, 1 SIGTERM sent, 2 SIGKILL sent */
	uint64_t kill_deadline_ns;
};

/* Become a subreaper; call before forking the command. */
int tree__init(struct tree *t);
/* Reap every child that has ended (non-blocking). */
void tree__reap(struct tree *t);
/* Escalate: first call sends SIGTERM (and SIGCONT, so stopped members see it) to every
 * traced process, later calls or the grace deadline send SIGKILL. */
void tree__stop(struct tree *t, struct probes *p, uint64_t now_ns, uint64_t grace_ns);
/* Exit status for probex: the command's, 128+N when killed by signal N. */
int tree__exit_status(const struct tree *t);

#endif
