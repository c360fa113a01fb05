/* What /proc tells of the processes traced from the start: their open descriptors (the
 * fd_path column's first entries) and, for attached ones, their command lines. */
#ifndef PROBEX_RECORD_PROCINFO_H
#define PROBEX_RECORD_PROCINFO_H

#include <stdbool.h>

#include "common/strbuf.h"

/* Append the META_FDS line (and with cmdlines, for attached processes, the META_CMDLINES
 * line) for pids to t; without, pids are about to exec (their close-on-exec fds go). */
void procinfo__add(struct strbuf *t, const int *pids, int n, bool cmdlines);

#endif
