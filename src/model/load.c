#include <errno.h>
#include <stdlib.h>

#include "common/log.h"
#include "common/rss.h"
#include "model/load.h"

int model__load_rows(duckdb_connection con, const struct trace_file *tf,
		     const volatile bool *cancel, struct model *m, struct trace_rows *rows,
		     model_summary_fn summary, void *ctx, bool details)
{
	uint32_t *rank;
	double t = rss__now();
	int err;

	if ((err = trace_rows__scan(con, tf, cancel, rows, details)))
		return err;
	log__debug("load: rows read in %.2f s (%s)", rss__now() - t, rss__mib());
	if ((err = model__build_summary(m, tf, rows, &rank)))
		return err;
	/* The summary can be answered while the rows are sorted (a second at 20M rows). */
	if (summary && (err = summary(ctx, m))) {
		free(rank);
		return err;
	}
	/* Names (half a second at 20M rows) come after the summary, which has none. */
	if (details && (err = trace_rows__scan_names(con, tf, rows))) {
		free(rank);
		return err;
	}
	if ((err = model__build_rows(m, rows, rank)))
		return err;
	log__debug("load: rows sorted in %.2f s (%s; %llu times on the side)", rss__now() - t,
		   rss__mib(), (unsigned long long)m->nts_big);
	return 0;
}

int model__load_names(duckdb_connection con, const struct trace_file *tf, bool ts_sorted,
		      struct model *m)
{
	struct trace_rows r = { .ts_sorted = ts_sorted };
	double t = rss__now();
	int err = trace_rows__scan_names(con, tf, &r);

	if (!err)
		model__take_names(m, &r);
	trace_rows__free(&r);
	log__debug("load: names read in %.2f s", rss__now() - t);
	return err;
}

int model__load_stacks(duckdb_connection con, const struct trace_file *tf,
		       const volatile bool *cancel, struct model *m, struct trace_rows *rows)
{
	double t = rss__now();
	int err = *cancel ? -ECANCELED : trace_rows__scan_stacks(con, tf, cancel, rows);

	log__debug("load: stacks read in %.2f s (%s)", rss__now() - t, rss__mib());
	t = rss__now();
	if (!err)
		err = model__attach_stacks(m, rows);
	log__debug("load: stacks attached in %.2f s", rss__now() - t);
	return err;
}
