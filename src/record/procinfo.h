/* What /proc tells of the processes traced from the start: their open descriptors (the
 * fd_path column's first entries) and, for attached ones, their command lines. */
#ifndef PROBEX_RECORD_PROCINFO_H
#define PROBEX_RECORD_PROCINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "common/strbuf.h"

/* Append the META_FDS line (and with cmdlines, for attached processes, the META_CMDLINES
 * line) for pids to t; without, pids are about to exec (their close-on-exec fds go).
 * META_FDS is left out when sys_flags (SYSF_* per syscall) records too few of the calls
 * that open, copy and close descriptors to follow them: then no row gets a fd_path. */
void procinfo__add(struct strbuf *t, const int *pids, int n, bool cmdlines,
		   const uint8_t *sys_flags);

#endif
