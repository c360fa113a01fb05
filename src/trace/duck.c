#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/log.h"
#include "trace/duck.h"

int duck__open_memory(duckdb_database *db, duckdb_connection *con, int threads)
{
	duckdb_config cfg = NULL;
	char *err = NULL;
	char buf[16];

	*db = NULL;
	*con = NULL;
	if (duckdb_create_config(&cfg) == DuckDBError)
		return -ENOMEM;
	/* Never phone home or autoload extensions from the network: parquet and json are
	 * built into the bundled library. */
	duckdb_set_config(cfg, "autoinstall_known_extensions", "false");
	duckdb_set_config(cfg, "autoload_known_extensions", "false");
	if (threads > 0) {
		snprintf(buf, sizeof(buf), "%d", threads);
		duckdb_set_config(cfg, "threads", buf);
	}
	if (duckdb_open_ext(NULL, db, cfg, &err) == DuckDBError) {
		log__error("cannot start DuckDB: %s", err ? err : "unknown error");
		duckdb_free(err);
		duckdb_destroy_config(&cfg);
		return -EIO;
	}
	duckdb_destroy_config(&cfg);
	if (duckdb_connect(*db, con) == DuckDBError) {
		duckdb_close(db);
		return -EIO;
	}
	return 0;
}

int duck__exec(duckdb_connection con, const char *sql)
{
	duckdb_result res;
	int ret = 0;

	if (duckdb_query(con, sql, &res) == DuckDBError) {
		log__error("%s", duckdb_result_error(&res));
		ret = -EIO;
	}
	duckdb_destroy_result(&res);
	return ret;
}

int duck__stream(duckdb_connection con, const char *sql, const char *what, duckdb_result *res)
{
	duckdb_prepared_statement ps = NULL;
	duckdb_pending_result pend = NULL;
	int err = -EIO;

	memset(res, 0, sizeof(*res));
	if (duckdb_prepare(con, sql, &ps) == DuckDBError)
		log__error("%s: %s", what, duckdb_prepare_error(ps));
	else if (duckdb_pending_prepared_streaming(ps, &pend) == DuckDBError)
		log__error("%s: %s", what, duckdb_pending_error(pend));
	else if (duckdb_execute_pending(pend, res) == DuckDBError)
		log__error("%s: %s", what, duckdb_result_error(res));
	else
		err = 0;
	if (err)
		duckdb_destroy_result(res);
	duckdb_destroy_pending(&pend);
	duckdb_destroy_prepare(&ps);
	return err;
}

int duck__quote(char *dst, size_t size, const char *s)
{
	size_t n = 0;

	if (size < 3)
		return -ENOSPC;
	dst[n++] = '\'';
	for (; *s; s++) {
		if (n + (*s == '\'' ? 2 : 1) + 2 > size)
			return -ENOSPC;
		if (*s == '\'')
			dst[n++] = '\'';
		dst[n++] = *s;
	}
	dst[n++] = '\'';
	dst[n] = 0;
	return 0;
}

int duck__open_file_view(const char *path, const char *name, duckdb_database *db,
			 duckdb_connection *con)
{
	char lit[4200], sql[4400];
	duckdb_result res;
	struct stat st;
	int err;

	/* DuckDB would block forever opening a FIFO and reads a directory as a glob of
	 * other files; a path that does not exist may be a glob, which DuckDB expands. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		log__error("%s: not a regular file", path);
		return -EINVAL;
	}
	err = duck__quote(lit, sizeof(lit), path);
	if (err) {
		log__error("%s: path too long", path);
		return err;
	}
	err = duck__open_memory(db, con, 0);
	if (err)
		return err;
	snprintf(sql, sizeof(sql), "CREATE VIEW %s AS SELECT * FROM read_parquet(%s)", name, lit);
	if (duckdb_query(*con, sql, &res) == DuckDBError) {
		log__error("%s: cannot read as Parquet: %s", path, duckdb_result_error(&res));
		err = -EIO;
	}
	duckdb_destroy_result(&res);
	if (err) {
		duckdb_disconnect(con);
		duckdb_close(db);
	}
	return err;
}
