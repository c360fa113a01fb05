/* Command lines by pid, as JSON arrays: a pid's last process_exec argv, else (for a process
 * probex attached to, which it never saw exec) what /proc said (probex.cmdlines). */
#ifndef PROBEX_MODEL_CMDLINES_H
#define PROBEX_MODEL_CMDLINES_H

#include <duckdb.h>
#include <stdint.h>

#include "trace/tracefile.h"

struct cmdlines {
	uint32_t n;
	uint32_t *pid;		/* ascending */
	char **json;		/* the array's JSON text */
};

/* Read tf's command lines (none in files without argv).  0, or a negative errno with
 * the problem logged. */
int cmdlines__read(duckdb_connection con, const struct trace_file *tf, struct cmdlines *c);
/* pid's command line as JSON text, or NULL. */
const char *cmdlines__get(const struct cmdlines *c, uint32_t pid);
void cmdlines__free(struct cmdlines *c);

#endif
