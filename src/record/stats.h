/* The kernel's exact counts (bpf/stats.h), read at the end of a recording into the
 * trace's probex.exact metadata (README, "Exact counts"). */
#ifndef PROBEX_RECORD_STATS_H
#define PROBEX_RECORD_STATS_H

#include <stdint.h>

#include "bpf/records.h"
#include "common/strbuf.h"

/* Appends the JSON array of probex.exact to out, and adds each entry's count to
 * per_kind[kind] (enum rec_kind).  0 or a negative errno. */
int stats__read(int stats_fd, int spill_fd, struct strbuf *out, uint64_t per_kind[REC__COUNT]);

#endif
