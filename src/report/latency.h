/* strace -c style latency tables shared by the syscall and io_uring sections. */
#ifndef PROBEX_REPORT_LATENCY_H
#define PROBEX_REPORT_LATENCY_H

#include "report/report.h"

/* One name's figures (a syscall, an io_uring opcode). */
struct latency_group {
	char *name;
	uint64_t n, errors, sum, p[4];	/* p50, p95, p99, max */
	uint64_t rows;			/* rows behind p[] and bytes: n unless incomplete */
	int64_t bytes;
	bool has_bytes, incomplete;
	char *errnos;			/* "ENOENT 3, EAGAIN 1" (syscalls), or NULL */
};

/* Run sql (the shape latency__table takes) into groups ordered by total latency, then
 * name; free with latency__free.  0 or a negative errno after a logged line. */
int latency__collect(struct report *r, const char *what, const char *sql,
		     struct latency_group **g, size_t *n);
void latency__free(struct latency_group *g, size_t n);
/* Where exact_sql (the shape latency__table takes) counts more calls than the groups'
 * rows, take calls, errors and total from it and mark the group incomplete; groups known
 * only from it are added.  0 or a negative errno. */
int latency__merge_exact(struct report *r, struct latency_group **g, size_t *n, const char *exact_sql);

/* sql yields (name VARCHAR, latency_ns UBIGINT, is_error BOOLEAN, bytes BIGINT or NULL)
 * in any order.  exact_sql (or NULL) yields (name VARCHAR, calls, errors, total_ns UBIGINT)
 * from the exact counts: where they count more calls than there are rows, they replace
 * the rows' figures, and what only the rows give is marked. */
int latency__table(struct report *r, const char *key, const char *title, const char *what,
		   const char *sql, const char *exact_sql);

#endif
