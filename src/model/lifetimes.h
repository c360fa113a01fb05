/* Each process's lifetime as process_lifetimes reports it: from its first fork (or first
 * row) to its first exit (or last row), with its parent and exit code. */
#ifndef PROBEX_MODEL_LIFETIMES_H
#define PROBEX_MODEL_LIFETIMES_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

struct lifetime {
	uint32_t pid, parent;
	uint64_t start, end;
	int32_t exit;
	bool forked, exited;
	const char *name;	/* the pid's first name, or NULL */
};

/* m->npids lifetimes by start (then pid) into *out, to free.  A process_exit row without
 * exit_code fails the query, as in the 0.1 viewer API: 0 with *out NULL and the message in
 * *error (to free).  -ENOMEM otherwise. */
int model__lifetimes(const struct model *m, struct lifetime **out, char **error);

/* CPU time by pid index: each thread's (samples × stack_weight × period) and, on a
 * process's own row (pid == tgid), its threads' count and their summed time. */
struct cpu_times {
	uint64_t *thread_ns, *process_ns;
	uint32_t *threads;
	bool known;		/* the file has a sampling frequency */
};

int model__cpu_times(const struct model *m, struct cpu_times *out);
void cpu_times__free(struct cpu_times *c);

#endif
