#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "export/export.h"
#include "trace/duck.h"
#include "trace/tracefile.h"
#include "trace/view.h"

const char *const export_fmt_names[EXPORT__COUNT] = {
	[EXPORT_FOLDED] = "folded",
	[EXPORT_SPEEDSCOPE] = "speedscope",
	[EXPORT_CHROME] = "chrome",
	[EXPORT_PPROF] = "pprof",
};

void export__pid_clause(const struct export_opts *o, char *buf, size_t size)
{
	if (o->has_pid)
		snprintf(buf, size, " AND (pid = %u OR tgid = %u)", o->pid, o->pid);
	else
		buf[0] = 0;
}

static int stacks(duckdb_connection con, const struct trace_file *tf, const struct export_opts *o,
		  FILE *out)
{
	struct ex_profile p;
	int err;

	progress__phase(o->progress, "reading stacks");
	err = ex_profile__load(&p, con, o, tf->sample_freq_hz);
	progress__phase(o->progress, "writing");
	if (!err && o->fmt == EXPORT_FOLDED)
		err = export__folded(&p, out);
	else if (!err && o->fmt == EXPORT_SPEEDSCOPE)
		err = export__speedscope(&p, out, tf->path);
	else if (!err)
		err = export__pprof(&p, out);
	progress__done(o->progress);
	if (!err && !p.nstacks)
		log__warn("%s: no %s stacks%s", tf->path, o->event_type, o->has_pid ? " for that pid" : "");
	ex_profile__free(&p);
	return err;
}

static int start_ts(duckdb_connection con, uint64_t *ts)
{
	duckdb_result res;

	if (duckdb_query(con, "SELECT coalesce(min(ts_ns), 0) FROM events", &res) == DuckDBError) {
		log__error("reading the time range: %s", duckdb_result_error(&res));
		duckdb_destroy_result(&res);
		return -EIO;
	}
	*ts = duckdb_value_uint64(&res, 0, 0);
	duckdb_destroy_result(&res);
	return 0;
}

int export__run(const char *path, const struct export_opts *o, FILE *out)
{
	duckdb_database db;
	duckdb_connection con;
	struct export_opts eo = *o;
	struct trace_file tf;
	uint64_t start;
	int err;

	err = duck__open_memory(&db, &con, 0);
	if (err)
		return err;
	err = trace_file__open(path, con, &tf);
	if (err)
		goto out_db;
	if ((err = trace_view__create(con, &tf, "events")))
		goto out;
	if (o->fmt == EXPORT_CHROME) {
		err = start_ts(con, &start);
		if (!err)
			err = export__chrome(con, o, out, start);
	} else {
		eo.tf = &tf;
		err = stacks(con, &tf, &eo, out);
	}
	if (err == -EIO && ferror(out))
		log__error("writing the export: %s", strerror(errno));
out:
	trace_file__free(&tf);
out_db:
	duckdb_disconnect(&con);
	duckdb_close(&db);
	return err;
}
