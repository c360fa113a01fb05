/* event_list's payload fields: a page's other columns (fd, count, ret, address, cpu, exit
 * code, ...), fetched from the trace file by file row number when the page is written.
 * The model keeps only what the aggregate endpoints need; a page is at most 10 000 rows. */
#ifndef PROBEX_SERVER_PAYLOAD_H
#define PROBEX_SERVER_PAYLOAD_H

#include <stdint.h>

#include "server/api.h"

struct payload;

/* Fetch the columns of file rows rows[0..n).  0, or an HTTP status with rq->error set. */
int payload__fetch(struct request *rq, const uint32_t *rows, uint32_t n, struct payload **out);
/* Append "key": value for every non-null payload column of file row fr (none if absent). */
void payload__write(struct payload *pl, struct json *j, uint32_t fr);
void payload__free(struct payload *pl);

#endif
