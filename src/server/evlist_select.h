/* event_list's ordered and searched pages: the rows of one pid's window that match a
 * search text (type, thread name or a stack frame), by time or longest latency first. */
#ifndef PROBEX_SERVER_EVLIST_SELECT_H
#define PROBEX_SERVER_EVLIST_SELECT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

struct evlist_query {
	const bool *types;	/* type codes to keep, or NULL for all */
	const char *search;	/* case-insensitive text, or NULL */
	bool by_latency;	/* longest first; rows without a latency last */
	uint32_t pid;
};

/* Rows lo..hi of the model that match q, page `offset`/`limit` of them in q's order into
 * page (room for limit); *shown = rows written, *total = rows matching. 0 or -ENOMEM. */
int evlist__select(const struct model *m, uint64_t lo, uint64_t hi, const struct evlist_query *q,
		   uint64_t offset, uint64_t limit, uint64_t *page, uint64_t *shown, uint64_t *total);

#endif
