#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/log.h"
#include "common/strbuf.h"
#include "query/tracedb.h"
#include "trace/duck.h"

/* DuckDB would block forever opening a FIFO and reads a directory as a glob of other
 * files: only regular files go to read_parquet. */
static int check_file(const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		log__error("%s: cannot open: %s", path, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISREG(st.st_mode)) {
		log__error("%s: not a regular file", path);
		return -EINVAL;
	}
	return 0;
}

/* Append 'path' (quoted) to the SQL being built. */
static int add_literal(struct strbuf *sql, const char *path)
{
	size_t cap = strlen(path) * 2 + 3;
	char *lit = malloc(cap);

	if (!lit)
		return -ENOMEM;
	duck__quote(lit, cap, path);
	strbuf__add(sql, lit, strlen(lit));
	free(lit);
	return 0;
}

/* "[ 'a', 'b' ]" or "'a'": the read_parquet / parquet_kv_metadata argument. */
static int file_list(struct strbuf *out, char **paths, int n, bool multi)
{
	int err = 0;

	if (multi)
		strbuf__add(out, "[", 1);
	for (int i = 0; i < n && !err; i++) {
		if (i)
			strbuf__add(out, ", ", 2);
		err = add_literal(out, paths[i]);
	}
	if (multi)
		strbuf__add(out, "]", 1);
	return err ? err : out->err;
}

static int create_views(struct trace_db *t, char **paths, int n, const char *shown)
{
	struct strbuf list = { 0 }, sql = { 0 };
	duckdb_result res;
	int err;

	err = file_list(&list, paths, n, t->multi);
	if (err)
		goto out;
	/* union_by_name: traces from different probex versions may differ in columns. */
	if (t->multi)
		strbuf__addf(&sql, "CREATE VIEW events AS SELECT * FROM read_parquet(%s, filename = 'file', "
			     "union_by_name = true); CREATE VIEW metadata AS SELECT file_name AS file, "
			     "decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata(%s)",
			     list.s, list.s);
	else
		strbuf__addf(&sql, "CREATE VIEW events AS SELECT * FROM read_parquet(%s); CREATE VIEW "
			     "metadata AS SELECT decode(key) AS key, decode(value) AS value FROM "
			     "parquet_kv_metadata(%s)", list.s, list.s);
	if ((err = sql.err))
		goto out;
	if (duckdb_query(t->con, sql.s, &res) == DuckDBError) {
		log__error("%s: cannot read as Parquet: %s", shown, duckdb_result_error(&res));
		err = -EIO;
	}
	duckdb_destroy_result(&res);
out:
	strbuf__free(&list);
	strbuf__free(&sql);
	return err;
}

int trace_db__open(struct trace_db *t, const char *arg)
{
	char *one[1] = { (char *)arg };
	glob_t g = { 0 };
	char **paths = one;
	int err, n = 1;

	memset(t, 0, sizeof(*t));
	t->multi = strpbrk(arg, "*?[") != NULL;
	if (t->multi) {
		if (glob(arg, 0, NULL, &g) || !g.gl_pathc) {
			log__error("%s: no file matches", arg);
			globfree(&g);
			return -ENOENT;
		}
		paths = g.gl_pathv;
		n = (int)g.gl_pathc;
	}
	for (int i = 0; i < n; i++)
		if ((err = check_file(paths[i])))
			goto out;
	err = duck__open_memory(&t->db, &t->con, 0);
	if (!err)
		err = create_views(t, paths, n, t->multi ? arg : paths[0]);
	if (err)
		trace_db__close(t);
	t->nfiles = n;
out:
	if (t->multi)
		globfree(&g);
	return err;
}

void trace_db__close(struct trace_db *t)
{
	if (t->con)
		duckdb_disconnect(&t->con);
	if (t->db)
		duckdb_close(&t->db);
}
