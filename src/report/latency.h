/* strace -c style latency tables shared by the syscall and io_uring sections. */
#ifndef PROBEX_REPORT_LATENCY_H
#define PROBEX_REPORT_LATENCY_H

#include "report/report.h"

/* sql yields (name VARCHAR, latency_ns UBIGINT, is_error BOOLEAN, bytes BIGINT or NULL)
 * ordered by name, then latency.  exact_sql (or NULL) yields (name VARCHAR, calls, errors,
 * total_ns UBIGINT) from the exact counts: where they count more calls than there are
 * rows, they replace the rows' figures, and what only the rows give is marked. */
int latency__table(struct report *r, const char *key, const char *title, const char *what,
		   const char *sql, const char *exact_sql);

#endif
