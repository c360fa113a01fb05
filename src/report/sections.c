/* The report's tables over the filtered `events` view: the process tree, syscalls,
 * io_uring by opcode, page faults per process, context switches per thread. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "export/export.h"
#include "report/latency.h"
#include "report/report.h"
#include "trace/schema.h"
#include "trace/syscalls.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define INVOLUNTARY "(" STR(TRACE_STATE_RUNNABLE) ", " STR(TRACE_STATE_PREEMPTED) ")"

/* The syscalls whose return value is a byte count, as an SQL list: 'read', 'write', ... */
static void byte_syscalls(struct strbuf *b)
{
	const char *sep = "";

	for (unsigned int nr = 0; nr < TRACE_SYSCALL_MAX; nr++) {
		const char *name = syscall__name(nr);

		if (name && syscall__ret_is_bytes(name)) {
			strbuf__addf(b, "%s'%s'", sep, name);
			sep = ", ";
		}
	}
}

void report__syscalls_sql(struct strbuf *sql)
{
	strbuf__addf(sql, "WITH s AS (SELECT regexp_extract(event_type, '^syscall_(.*)_exit$', 1) AS name, "
		"latency_ns, ret FROM events WHERE event_type LIKE 'syscall\\_%%\\_exit' ESCAPE '\\' "
		"AND latency_ns IS NOT NULL) SELECT name, latency_ns::UBIGINT, coalesce(ret < 0, false), "
		"CASE WHEN name IN (");
	byte_syscalls(sql);
	strbuf__addf(sql, ") THEN greatest(coalesce(ret, 0), 0) END::BIGINT FROM s");
}

int report__syscalls(struct report *r)
{
	struct strbuf sql = { 0 };
	int err;

	report__syscalls_sql(&sql);
	err = sql.err ? sql.err : latency__table(r, "syscalls",
		"Syscalls (latency from enter to exit; bytes returned)", "syscalls", sql.s,
		REPORT_SYSCALLS_EXACT_SQL);
	strbuf__free(&sql);
	return err;
}

/* IORING_OP_* names by opcode (include/uapi/linux/io_uring.h). */
#define IORING_OPS "['NOP', 'READV', 'WRITEV', 'FSYNC', 'READ_FIXED', 'WRITE_FIXED', 'POLL_ADD', " \
	"'POLL_REMOVE', 'SYNC_FILE_RANGE', 'SENDMSG', 'RECVMSG', 'TIMEOUT', 'TIMEOUT_REMOVE', " \
	"'ACCEPT', 'ASYNC_CANCEL', 'LINK_TIMEOUT', 'CONNECT', 'FALLOCATE', 'OPENAT', 'CLOSE', " \
	"'FILES_UPDATE', 'STATX', 'READ', 'WRITE', 'FADVISE', 'MADVISE', 'SEND', 'RECV', " \
	"'OPENAT2', 'EPOLL_CTL', 'SPLICE', 'PROVIDE_BUFFERS', 'REMOVE_BUFFERS', 'TEE', " \
	"'SHUTDOWN', 'RENAMEAT', 'UNLINKAT', 'MKDIRAT', 'SYMLINKAT', 'LINKAT', 'MSG_RING', " \
	"'FSETXATTR', 'SETXATTR', 'FGETXATTR', 'GETXATTR', 'SOCKET', 'URING_CMD', 'SEND_ZC', " \
	"'SENDMSG_ZC']"
#define IORING_BYTE_OPS "'READV', 'WRITEV', 'READ_FIXED', 'WRITE_FIXED', 'SENDMSG', 'RECVMSG', " \
	"'READ', 'WRITE', 'SEND', 'RECV', 'SPLICE', 'TEE', 'SEND_ZC', 'SENDMSG_ZC'"

int report__io_uring(struct report *r)
{
	return latency__table(r, "io_uring", "io_uring by opcode (latency from submission to completion)",
		"io_uring completions",
		"WITH s AS (SELECT coalesce(" IORING_OPS "[io_uring_opcode + 1], 'op ' || io_uring_opcode) "
		"AS name, coalesce(latency_ns, ts_ns - submit_ts_ns) AS lat, io_uring_res FROM events "
		"WHERE event_type = 'io_uring_complete' AND submit_ts_ns > 0 AND ts_ns >= submit_ts_ns) "
		"SELECT name, lat::UBIGINT, coalesce(io_uring_res < 0, false), CASE WHEN name IN ("
		IORING_BYTE_OPS ") THEN greatest(coalesce(io_uring_res, 0), 0) END::BIGINT FROM s "
		"ORDER BY 1, 2",
		"SELECT coalesce(" IORING_OPS "[nr::BIGINT + 1], 'op ' || nr), sum(count)::UBIGINT, "
		"sum(errors)::UBIGINT, sum(total_ns)::UBIGINT FROM exact WHERE event_type = "
		"'io_uring_complete' GROUP BY 1");
}

/* Rows of a small result as a table: every column BIGINT or VARCHAR, in cols' order. */
int report__simple_table(struct report *r, struct rtable *t, const char *what, const char *sql)
{
	duckdb_result res;
	idx_t rows;
	int err;

	if ((err = report__query(r, what, sql, &res)))
		return err;
	rows = duckdb_row_count(&res);
	for (idx_t i = 0; i < rows; i++) {
		if (i >= r->o->top) {
			t->left_out = rows - i;
			break;
		}
		rtable__row(t);
		for (int k = 0; k < t->ncols; k++) {
			char *s;

			if (duckdb_value_is_null(&res, k, i)) {
				rtable__null(t);
			} else if (t->cols[k].kind == RC_TEXT) {
				s = duckdb_value_varchar(&res, k, i);
				rtable__str(t, s ? s : "");
				duckdb_free(s);
			} else {
				rtable__int(t, duckdb_value_int64(&res, k, i));
			}
		}
	}
	duckdb_destroy_result(&res);
	report__emit(r, t);
	return 0;
}

int report__faults(struct report *r)
{
	static const struct rcol cols[] = {
		{ "pid", RC_INT, NULL }, { "process", RC_TEXT, NULL }, { "faults", RC_INT, NULL }, { "user", RC_INT, NULL },
		{ "kernel", RC_INT, NULL }, { "write", RC_INT, NULL }, { "read", RC_INT, NULL },
	};
	struct rtable t;

	/* x86 page fault error code: bit 1 a write, bit 2 from user mode. */
	rtable__init(&t, "page_faults", "Page faults per process", cols, 7);
	return report__simple_table(r, &t, "page faults",
		"SELECT tgid::BIGINT, arg_max(process_name, ts_ns), count(*), "
		"count_if(error_code & 4 <> 0), count_if(error_code & 4 = 0), "
		"count_if(error_code & 2 <> 0), count_if(error_code & 2 = 0) FROM events "
		"WHERE event_type = 'page_fault' GROUP BY tgid ORDER BY 3 DESC, 1");
}

int report__sched(struct report *r)
{
	static const struct rcol cols[] = {
		{ "tid", RC_INT, NULL }, { "pid", RC_INT, NULL }, { "thread", RC_TEXT, NULL }, { "switches", RC_INT, NULL },
		{ "voluntary", RC_INT, NULL }, { "involuntary", RC_INT, NULL }, { "off-cpu", RC_NS, "off_cpu_ns" },
		{ "max off", RC_NS, "max_off_cpu_ns" },
	};
	struct rtable t;

	/* Off CPU from a switch-out to the thread's next switch-in (both in the window). */
	rtable__init(&t, "context_switches", "Context switches and off-CPU time per thread", cols, 8);
	return report__simple_table(r, &t, "context switches",
		SWITCH_INTERVALS_SQL("") "SELECT pid::BIGINT, tgid::BIGINT, arg_max(process_name, ts_ns), count_if(is_out), "
		"count_if(is_out AND prev_state NOT IN " INVOLUNTARY "), "
		"count_if(is_out AND prev_state IN " INVOLUNTARY "), "
		"sum(CASE WHEN is_out AND nin THEN nt - ts_ns END)::BIGINT, "
		"max(CASE WHEN is_out AND nin THEN nt - ts_ns END)::BIGINT FROM q GROUP BY pid, tgid "
		"HAVING count_if(is_out) > 0 ORDER BY 7 DESC NULLS LAST, 4 DESC, 1");
}
