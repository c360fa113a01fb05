/* strace -c style latency tables shared by the syscall and io_uring sections. */
#ifndef PROBEX_REPORT_LATENCY_H
#define PROBEX_REPORT_LATENCY_H

#include "report/report.h"

/* sql yields (name VARCHAR, latency_ns UBIGINT, is_error BOOLEAN, bytes BIGINT or NULL)
 * ordered by name, then latency. */
int latency__table(struct report *r, const char *key, const char *title, const char *what,
		   const char *sql);

#endif
