/* Files: the I/O syscalls (syscall__is_io) by the path of their descriptor (fd_path),
 * the figures the viewer's IO tab lists per operation, summed per file. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/strbuf.h"
#include "report/report.h"
#include "trace/syscalls.h"

static const struct rcol cols[] = {
	{ "calls", RC_INT, NULL }, { "bytes", RC_BYTES, NULL }, { "total", RC_NS, "total_ns" },
	{ "max", RC_NS, "max_ns" }, { "syscalls", RC_TEXT, NULL }, { "file", RC_TEXT, "path" },
};

/* The syscalls with a fact (syscall__is_io, syscall__ret_is_bytes) as an SQL list. */
static void names_where(struct strbuf *b, bool (*fact)(const char *name))
{
	const char *sep = "";

	for (unsigned int nr = 0; nr < TRACE_SYSCALL_MAX; nr++) {
		const char *name = syscall__name(nr);

		if (name && fact(name)) {
			strbuf__addf(b, "%s'%s'", sep, name);
			sep = ", ";
		}
	}
}

int report__files(struct report *r)
{
	struct strbuf sql = { 0 };
	struct rtable t;
	int err;

	/* Exit rows: a call counts where it ends, with its latency and result. */
	strbuf__addf(&sql, "WITH s AS (SELECT regexp_extract(event_type, '^syscall_(.*)_exit$', 1) AS name, "
		     "fd_path, latency_ns, ret FROM events WHERE fd_path IS NOT NULL AND event_type LIKE "
		     "'syscall\\_%%\\_exit' ESCAPE '\\'), io AS (SELECT * FROM s WHERE name IN (");
	names_where(&sql, syscall__is_io);
	strbuf__addf(&sql, ")), n AS (SELECT fd_path, name, count(*) AS c FROM io GROUP BY 1, 2) "
		     "SELECT count(*)::BIGINT, sum(CASE WHEN name IN (");
	names_where(&sql, syscall__ret_is_bytes);
	strbuf__addf(&sql, ") THEN greatest(coalesce(ret, 0), 0) ELSE 0 END)::BIGINT, "
		     "sum(coalesce(latency_ns, 0))::BIGINT, max(coalesce(latency_ns, 0))::BIGINT, "
		     "(SELECT string_agg(name || ' ' || c, ', ' ORDER BY c DESC, name) FROM n "
		     "WHERE n.fd_path = io.fd_path), fd_path FROM io GROUP BY fd_path ORDER BY 3 DESC, 6");
	if (sql.err) {
		strbuf__free(&sql);
		return -ENOMEM;
	}
	rtable__init(&t, "files", "Files (I/O syscalls by the path of their descriptor; latency enter to exit)",
		     cols, sizeof(cols) / sizeof(cols[0]));
	err = report__simple_table(r, &t, "files", sql.s);
	strbuf__free(&sql);
	return err;
}
