/* event_list's ordered and searched pages: the rows of a window (one thread's, or a
 * process's threads merged) that match a search text (type, thread name or a stack
 * frame), by time or longest latency first. */
#ifndef PROBEX_SERVER_EVLIST_SELECT_H
#define PROBEX_SERVER_EVLIST_SELECT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

struct evlist_query {
	const bool *types;	/* type codes to keep, or NULL for all */
	const char *search;	/* case-insensitive text, or NULL */
	bool by_latency;	/* longest first; rows without a latency last */
	const uint32_t *path_rows;	/* file rows whose path holds the text, sorted */
	size_t npath;
};

struct request;

/* File rows in start..end whose filename or fd_path (where the file has them) holds text,
 * sorted, into *rows (free()); 0 or -ENOMEM. */
int evlist__path_rows(struct request *rq, uint64_t start, uint64_t end, const char *text,
		      uint32_t **rows, size_t *n);

/* Rows lo..hi of the model (or rows[lo..hi] when rows is not NULL) that match q, page
 * `offset`/`limit` of them in q's order into page (room for limit); *shown = rows
 * written, *total = rows matching. 0 or -ENOMEM. */
int evlist__select(const struct model *m, const uint64_t *rows, uint64_t lo, uint64_t hi,
		   const struct evlist_query *q, uint64_t offset, uint64_t limit, uint64_t *page,
		   uint64_t *shown, uint64_t *total);

#endif
