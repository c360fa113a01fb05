#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/iofiles.h"
#include "trace/syscalls.h"

/* At most this many files per operation, the slowest in total first. */
#define IO_FILES_MAX 100

int io_files__read(struct request *rq, const struct window *w, struct io_files *out)
{
	struct conn_ctx *c;
	duckdb_result res;
	char who[64] = "";
	char *sql;
	idx_t n;

	memset(out, 0, sizeof(*out));
	if (!rq->st->tf.has_fd_path)
		return 0;
	if (!(c = api__conn(rq)))
		return api__fail(rq, 500, "no database connection");
	if (w->has_pid)
		snprintf(who, sizeof(who), " AND pid = %" PRIu32, w->pid);
	else if (w->has_tgid)
		snprintf(who, sizeof(who), " AND tgid = %" PRIu32, w->tgid);
	/* Exit rows carry the latency and the result; a call counts where it ends. */
	if (asprintf(&sql,
		     "SELECT op, fd_path, n, bytes, ns FROM (SELECT *, row_number() OVER "
		     "(PARTITION BY op ORDER BY ns DESC, fd_path) AS k FROM (SELECT "
		     "regexp_extract(event_type, '^syscall_(.*)_exit$', 1) AS op, fd_path, "
		     "count(*)::UBIGINT AS n, sum(CASE WHEN ret > 0 THEN ret ELSE 0 END)::UBIGINT AS bytes, "
		     "sum(%s)::UBIGINT AS ns "
		     "FROM read_parquet(%s) WHERE fd_path IS NOT NULL AND ts_ns BETWEEN %" PRIu64 " AND %" PRIu64
		     "%s AND event_type LIKE 'syscall\\_%%\\_exit' ESCAPE '\\' GROUP BY op, fd_path)) "
		     "WHERE k <= %d ORDER BY op, ns DESC, fd_path",
		     /* A file may carry fd_path and no latency_ns: its files then have no time. */
		     rq->st->tf.has_latency_ns ? "COALESCE(latency_ns, 0)" : "0",
		     rq->st->tf.literal, w->start, w->end, who, IO_FILES_MAX) < 0)
		return api__fail(rq, 500, "out of memory");
	if (duckdb_query(c->con, sql, &res) == DuckDBError) {
		int st = api__fail(rq, 500, "query failed: %s", duckdb_result_error(&res));

		duckdb_destroy_result(&res);
		free(sql);
		return st;
	}
	free(sql);
	n = duckdb_row_count(&res);
	out->f = calloc(n + 1, sizeof(*out->f));
	for (idx_t i = 0; out->f && i < n; i++) {
		struct io_file *f = &out->f[out->n++];

		f->op = duckdb_value_varchar(&res, 0, i);
		f->path = duckdb_value_varchar(&res, 1, i);
		f->ops = duckdb_value_uint64(&res, 2, i);
		f->bytes = syscall__ret_is_bytes(f->op) ? duckdb_value_uint64(&res, 3, i) : 0;
		f->total_ns = duckdb_value_uint64(&res, 4, i);
	}
	duckdb_destroy_result(&res);
	return out->f ? 0 : api__fail(rq, 500, "out of memory");
}

void io_files__json(struct json *j, const struct io_files *f, const char *op)
{
	json__arr_begin(j);
	for (uint64_t i = 0; i < f->n; i++) {
		if (!f->f[i].op || !f->f[i].path || strcmp(f->f[i].op, op))
			continue;
		json__obj_begin(j);
		json__key(j, "path");
		json__str(j, f->f[i].path);
		json__key(j, "ops");
		json__u64(j, f->f[i].ops);
		json__key(j, "bytes");
		json__u64(j, f->f[i].bytes);
		json__key(j, "total_latency_ns");
		json__u64(j, f->f[i].total_ns);
		json__obj_end(j);
	}
	json__arr_end(j);
}

void io_files__free(struct io_files *f)
{
	for (uint64_t i = 0; f->f && i < f->n; i++) {
		duckdb_free(f->f[i].op);
		duckdb_free(f->f[i].path);
	}
	free(f->f);
	memset(f, 0, sizeof(*f));
}
