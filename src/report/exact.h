/* The report's use of probex.exact (README, "Exact counts"): the `exact` view of the
 * counts the kernel kept beside the rows, and the one line saying what was dropped. */
#ifndef PROBEX_REPORT_EXACT_H
#define PROBEX_REPORT_EXACT_H

#include "report/report.h"
#include "trace/tracefile.h"

/* exact(tgid, event_type, nr, count, errors, total_ns), in the report's scope: a --pid
 * keeps that process's entries; a time window keeps none (the counts cover the whole
 * recording).  Empty for a trace without probex.exact. */
int exact__load(struct report *r, const struct trace_file *tf);

/* Text: "dropped N of M records (P%): ..." with the advice, when the ring buffer lost
 * any; JSON: the same under "dropped".  Nothing when none was lost. */
int exact__drop_line(struct report *r, const struct trace_file *tf);

#endif
