/* Test helper: run the SQL read from stdin in an in-memory DuckDB (the API tests write
 * their hand-built trace files with it).  Exit 1 with the error on failure. */
#include <duckdb.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	size_t cap = 1 << 16, len = 0, n;
	char *sql = malloc(cap);
	duckdb_database db;
	duckdb_connection con;
	duckdb_result res;
	int ret = 0;

	if (!sql)
		return 1;
	while ((n = fread(sql + len, 1, cap - len - 1, stdin)) > 0) {
		len += n;
		if (len + 1 == cap && !(sql = realloc(sql, cap *= 2)))
			return 1;
	}
	sql[len] = 0;
	if (duckdb_open(NULL, &db) == DuckDBError || duckdb_connect(db, &con) == DuckDBError)
		return 1;
	if (duckdb_query(con, sql, &res) == DuckDBError) {
		fprintf(stderr, "sqlrun: %s\n", duckdb_result_error(&res));
		ret = 1;
	}
	duckdb_destroy_result(&res);
	duckdb_disconnect(&con);
	duckdb_close(&db);
	free(sql);
	return ret;
}
