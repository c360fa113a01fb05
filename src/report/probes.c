/* The report's --probe section: each probe's count, its function latencies (from enter
 * to return, as the syscalls'), and its most frequent argument values.  Absent when the
 * trace has no probe rows. */
#include <errno.h>
#include <stdlib.h>

#include "report/latency.h"
#include "report/report.h"

#define PROBE_TYPES "(event_type LIKE 'probe\\_%' ESCAPE '\\' OR event_type LIKE 'usdt\\_%' ESCAPE '\\' " \
	"OR event_type LIKE 'tp\\_%' ESCAPE '\\')"

static int64_t probe_rows(struct report *r)
{
	duckdb_result res;
	int64_t n;

	if (report__query(r, "probe rows", "SELECT count(*) FROM events WHERE " PROBE_TYPES, &res))
		return -EIO;
	n = duckdb_value_int64(&res, 0, 0);
	duckdb_destroy_result(&res);
	return n;
}

int report__probes(struct report *r)
{
	static const struct rcol counts[] = {
		{ "probe", RC_TEXT, NULL }, { "rows", RC_INT, NULL }, { "threads", RC_INT, NULL },
	};
	static const struct rcol top[] = {
		{ "probe", RC_TEXT, NULL }, { "probe_args", RC_TEXT, NULL }, { "rows", RC_INT, NULL },
	};
	int64_t n = probe_rows(r);
	struct rtable t;
	int err;

	if (n <= 0)
		return (int)n;
	rtable__init(&t, "probes", "Probes (--probe): rows per event type", counts, 3);
	err = report__simple_table(r, &t, "probes",
		"SELECT event_type, count(*), count(DISTINCT pid) FROM events WHERE " PROBE_TYPES
		" GROUP BY 1 ORDER BY 2 DESC, 1");
	if (!err)
		err = latency__table(r, "probe_latency", "Probed functions (latency from entry to return; "
			"errors: negative ret)", "probe returns",
			"SELECT regexp_extract(event_type, '^probe_(.*)_exit$', 1), latency_ns::UBIGINT, "
			"coalesce(ret < 0, false), NULL::BIGINT FROM events WHERE event_type LIKE "
			"'probe\\_%\\_exit' ESCAPE '\\' AND latency_ns IS NOT NULL ORDER BY 1, 2", NULL);
	if (err)
		return err;
	rtable__init(&t, "probe_args", "Probes: most frequent argument values (3 per probe)", top, 3);
	return report__simple_table(r, &t, "probe arguments",
		"SELECT event_type, probe_args, c FROM (SELECT event_type, probe_args, count(*) c, "
		"row_number() OVER (PARTITION BY event_type ORDER BY count(*) DESC, probe_args) k "
		"FROM events WHERE probe_args IS NOT NULL GROUP BY 1, 2) WHERE k <= 3 ORDER BY 1, 3 DESC, 2");
}
