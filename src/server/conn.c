#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/conn.h"

static char payload_text[PAYLOAD_BATCH * 8 + 64], payload_big_text[PAYLOAD_BATCH_BIG * 8 + 64];
static pthread_once_t payload_once = PTHREAD_ONCE_INIT;

/* "SELECT * FROM pl WHERE file_row_number IN ($1, ..., $count)" */
static void payload_in_list(char *buf, size_t size, int count)
{
	size_t n = (size_t)snprintf(buf, size, "SELECT * FROM pl WHERE file_row_number IN (");

	for (int i = 1; i <= count; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s$%d", i > 1 ? ", " : "", i);
	snprintf(buf + n, size - n, ")");
}

static void payload_sql(void)
{
	payload_in_list(payload_text, sizeof(payload_text), PAYLOAD_BATCH);
	payload_in_list(payload_big_text, sizeof(payload_big_text), PAYLOAD_BATCH_BIG);
}

struct conn_ctx *conn__get(struct viewer_state *st)
{
	struct conn_ctx *c;

	pthread_mutex_lock(&st->lock);
	c = st->idle;
	if (c)
		st->idle = c->next;
	pthread_mutex_unlock(&st->lock);
	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (duckdb_connect(st->db, &c->con) == DuckDBError) {
		free(c);
		return NULL;
	}
	return c;
}

void conn__put(struct viewer_state *st, struct conn_ctx *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&st->lock);
	c->next = st->idle;
	st->idle = c;
	pthread_mutex_unlock(&st->lock);
}

void conn__free_all(struct viewer_state *st)
{
	while (st->idle) {
		struct conn_ctx *c = st->idle;

		st->idle = c->next;
		for (int i = 0; i < Q__COUNT; i++)
			duckdb_destroy_prepare(&c->stmt[i]);
		duckdb_disconnect(&c->con);
		free(c);
	}
}

duckdb_prepared_statement conn__stmt(struct conn_ctx *c, enum stmt_id id, char *err, size_t len)
{
	if (c->stmt[id]) {
		duckdb_clear_bindings(c->stmt[id]);
		return c->stmt[id];
	}
	const char *const sql[Q__COUNT] = {
		[Q_PAYLOAD] = payload_text,
		[Q_PAYLOAD_BIG] = payload_big_text,
		[Q_PATH_FILENAME] = "SELECT file_row_number FROM pl WHERE ts_ns BETWEEN $1 AND $2 "
				    "AND contains(lower(filename), lower($3))",
		[Q_PATH_FD_PATH] = "SELECT file_row_number FROM pl WHERE ts_ns BETWEEN $1 AND $2 "
				   "AND contains(lower(fd_path), lower($3))",
	};

	pthread_once(&payload_once, payload_sql);
	if (duckdb_prepare(c->con, sql[id], &c->stmt[id]) == DuckDBError) {
		snprintf(err, len, "%s", duckdb_prepare_error(c->stmt[id]));
		duckdb_destroy_prepare(&c->stmt[id]);
		return NULL;
	}
	return c->stmt[id];
}

int conn__run(duckdb_prepared_statement s, duckdb_result *res, char *err, size_t len)
{
	if (duckdb_execute_prepared(s, res) == DuckDBError) {
		const char *e = duckdb_result_error(res);

		snprintf(err, len, "%s", e ? e : "unknown DuckDB error");
		duckdb_destroy_result(res);
		return -EIO;
	}
	return 0;
}
