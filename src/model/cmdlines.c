#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bsearch.h"
#include "common/log.h"
#include "model/cmdlines.h"
#include "trace/schema.h"

int cmdlines__read(duckdb_connection con, const struct trace_file *tf, struct cmdlines *c)
{
	duckdb_result res;
	char *sql = NULL;
	idx_t n;
	int err = 0;

	memset(c, 0, sizeof(*c));
	if (!tf->has_argv)
		return 0;
	/* A pid's exec wins over what /proc said at the start. */
	if (asprintf(&sql,
		     "WITH e AS (SELECT pid::UINTEGER AS p, to_json(arg_max(argv, file_row_number))::VARCHAR AS j, 0 AS k "
		     "FROM read_parquet(%s, file_row_number = true) "
		     "WHERE event_type = 'process_exec' AND argv IS NOT NULL GROUP BY p), "
		     "m AS (SELECT decode(value)::JSON AS j FROM parquet_kv_metadata(%s) "
		     "WHERE decode(key) = '" META_CMDLINES "'), "
		     "a AS (SELECT k::UINTEGER AS p, json_extract(j, '$.\"' || k || '\"')::VARCHAR AS j, 1 AS k "
		     "FROM m, unnest(json_keys(j)) AS t(k)) "
		     "SELECT p, arg_min(j, k) FROM (SELECT * FROM e UNION ALL SELECT * FROM a) "
		     "GROUP BY p ORDER BY p", tf->literal, tf->literal) < 0)
		return -ENOMEM;
	if (duckdb_query(con, sql, &res) == DuckDBError) {
		log__warn("%s: command lines unreadable: %s", tf->path, duckdb_result_error(&res));
		duckdb_destroy_result(&res);
		free(sql);
		return 0;	/* the lifetimes go out without them */
	}
	free(sql);
	n = duckdb_row_count(&res);
	c->pid = malloc((n + 1) * sizeof(*c->pid));
	c->json = calloc(n + 1, sizeof(*c->json));
	if (!c->pid || !c->json)
		err = -ENOMEM;
	for (idx_t i = 0; !err && i < n; i++) {
		c->pid[i] = duckdb_value_uint32(&res, 0, i);
		c->json[i] = duckdb_value_varchar(&res, 1, i);
		if (!c->json[i])
			err = -ENOMEM;
		c->n++;
	}
	duckdb_destroy_result(&res);
	if (err)
		cmdlines__free(c);
	return err;
}

const char *cmdlines__get(const struct cmdlines *c, uint32_t pid)
{
	int64_t i = c->n ? bsearch__find_u32(c->pid, c->n, pid) : -1;

	return i >= 0 ? c->json[i] : NULL;
}

void cmdlines__free(struct cmdlines *c)
{
	for (uint32_t i = 0; c->json && i < c->n; i++)
		duckdb_free(c->json[i]);
	free(c->json);
	free(c->pid);
	memset(c, 0, sizeof(*c));
}
