#include <duckdb.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/strbuf.h"
#include "symbolize/addrspace.h"
#include "trace/duck.h"
#include "finalize/jitmaps.h"
#include "finalize/labels.h"
#include "finalize/resymbolize.h"
#include "finalize/stackset.h"
#include "finalize/symdata.h"

struct kv_list {
	char **key, **val;
	int n;
};

static void kv_free(struct kv_list *kv)
{
	for (int i = 0; i < kv->n; i++) {
		duckdb_free(kv->key[i]);
		duckdb_free(kv->val[i]);
	}
	free(kv->key);
	free(kv->val);
}

static int read_kv(duckdb_connection con, const char *lit, struct kv_list *kv)
{
	char sql[8500];
	duckdb_result res;
	idx_t rows;

	snprintf(sql, sizeof(sql), "SELECT decode(key), decode(value) FROM parquet_kv_metadata(%s)", lit);
	if (duckdb_query(con, sql, &res) == DuckDBError) {
		log__error("%s", duckdb_result_error(&res));
		duckdb_destroy_result(&res);
		return -EIO;
	}
	rows = duckdb_row_count(&res);
	kv->key = calloc(rows + 1, sizeof(char *));
	kv->val = calloc(rows + 1, sizeof(char *));
	if (!kv->key || !kv->val) {
		duckdb_destroy_result(&res);
		return -ENOMEM;
	}
	for (idx_t r = 0; r < rows; r++) {
		kv->key[kv->n] = duckdb_value_varchar(&res, 0, r);
		kv->val[kv->n] = duckdb_value_varchar(&res, 1, r);
		kv->n++;
	}
	duckdb_destroy_result(&res);
	return 0;
}

static int load_labels(duckdb_connection con, struct labeler *l, struct stackset *us)
{
	duckdb_appender app;
	struct strbuf s = { 0 }, m = { 0 };
	struct stack_entry e;
	int err;

	err = duck__exec(con, "CREATE TABLE newu (id INTEGER, labels VARCHAR, modules VARCHAR)");
	if (err)
		return err;
	if (duckdb_appender_create(con, NULL, "newu", &app) == DuckDBError)
		return -EIO;
	for (uint32_t id = 0; id < stackset__count(us) && !err; id++) {
		stackset__get(us, id, &e);
		s.len = 0;
		m.len = 0;
		err = labeler__user(l, &e, &s, &m);
		if (err)
			break;
		duckdb_append_int32(app, (int32_t)id);
		duckdb_append_varchar(app, s.s + 1);	/* skip the leading separator */
		duckdb_append_varchar(app, m.s + 1);
		if (duckdb_appender_end_row(app) == DuckDBError)
			err = -EIO;
	}
	if (duckdb_appender_destroy(&app) == DuckDBError && !err)
		err = -EIO;
	strbuf__free(&s);
	strbuf__free(&m);
	return err;
}

/* Files written before stack_modules existed keep their columns. */
static bool has_modules(duckdb_connection con)
{
	duckdb_result res;
	bool ok = duckdb_query(con, "SELECT stack_modules FROM events LIMIT 0", &res) != DuckDBError;

	duckdb_destroy_result(&res);
	return ok;
}

static int write_out(duckdb_connection con, const char *in_lit, const char *tmp, struct kv_list *kv)
{
	struct strbuf sql = { 0 };
	char *q;
	int err;

	q = malloc(2 * strlen(tmp) + 3);
	if (!q || duck__quote(q, 2 * strlen(tmp) + 3, tmp)) {
		free(q);
		return -ENOMEM;
	}
	strbuf__addf(&sql,
		     "COPY (SELECT e.* EXCLUDE (file_row_number) REPLACE ("
		     "CASE WHEN e.stack_id IS NULL OR n.labels IS NULL THEN e.stack_trace ELSE "
		     "list_concat(string_split(n.labels, chr(31)), CASE WHEN list_position(e.stack_trace, '[kernel]') > 0 "
		     "THEN e.stack_trace[list_position(e.stack_trace, '[kernel]'):] ELSE []::VARCHAR[] END) END AS stack_trace%s) "
		     "FROM read_parquet(%s, file_row_number = true) e LEFT JOIN newu n ON n.id = e.stack_id "
		     "ORDER BY e.file_row_number) TO %s (FORMAT parquet, COMPRESSION zstd, KV_METADATA {",
		     !has_modules(con) ? "" :
		     ", CASE WHEN e.stack_id IS NULL OR n.labels IS NULL THEN e.stack_modules ELSE "
		     "list_concat(string_split(n.modules, chr(31)), CASE WHEN list_position(e.stack_trace, '[kernel]') > 0 "
		     "THEN e.stack_modules[list_position(e.stack_trace, '[kernel]'):] ELSE []::VARCHAR[] END) END AS stack_modules",
		     in_lit, q);
	free(q);
	for (int i = 0; i < kv->n; i++) {
		size_t kl = 2 * strlen(kv->key[i]) + 3, vl = 2 * strlen(kv->val[i]) + 3;
		char *kq = malloc(kl), *vq = malloc(vl);

		if (kq && vq && !duck__quote(kq, kl, kv->key[i]) && !duck__quote(vq, vl, kv->val[i]))
			strbuf__addf(&sql, "%s%s: %s", i ? ", " : "", kq, vq);
		else
			sql.err = -ENOMEM;
		free(kq);
		free(vq);
	}
	strbuf__add(&sql, "})", 2);
	err = sql.err ? sql.err : duck__exec(con, sql.s);
	strbuf__free(&sql);
	return err;
}

int resymbolize__run(const char *in, const char *out)
{
	const char *data = NULL;
	struct kv_list kv = { 0 };
	struct labeler_stats ls;
	struct labeler *l = NULL;
	struct addrspace *as = addrspace__new();
	struct stackset *us = stackset__new(), *ks = stackset__new();
	struct jitmaps *jit = jitmaps__new();
	duckdb_database db = NULL;
	duckdb_connection con = NULL;
	char lit[8400], tmp[4200];
	int err = -ENOMEM;

	if (!as || !us || !ks)
		goto cleanup;
	err = -EINVAL;
	if (duck__quote(lit, sizeof(lit), in) || duck__open_file_view(in, "events", &db, &con))
		goto cleanup;
	err = read_kv(con, lit, &kv);
	if (err)
		goto cleanup;
	for (int i = 0; i < kv.n; i++)
		if (!strcmp(kv.key[i], META_SYMBOL_DATA))
			data = kv.val[i];
	if (!data) {
		log__error("%s has no %s metadata (recorded by another tool or an older probex): nothing to redo",
			   in, META_SYMBOL_DATA);
		err = -ENODATA;
		goto cleanup;
	}
	err = jit ? symdata__decode(data, as, us, ks, jit) : -ENOMEM;
	if (err) {
		log__error("%s: damaged %s metadata", in, META_SYMBOL_DATA);
		goto cleanup;
	}
	l = labeler__new(as, NULL);
	if (l)
		labeler__set_jitmaps(l, jit);
	err = l ? load_labels(con, l, us) : -ENOMEM;
	if (err)
		goto cleanup;
	snprintf(tmp, sizeof(tmp), "%s.probex-tmp", out);
	err = write_out(con, lit, tmp, &kv);
	if (!err && rename(tmp, out))
		err = -errno;
	if (err) {
		unlink(tmp);
		log__error("cannot write %s: %s", out, strerror(-err));
		goto cleanup;
	}
	labeler__stats(l, &ls);
	log__info("re-symbolized %u stacks: %llu of %llu user frames named; wrote %s", stackset__count(us),
		  (unsigned long long)ls.user_symbolized, (unsigned long long)ls.user_frames, out);
cleanup:
	labeler__free(l);
	jitmaps__free(jit);
	kv_free(&kv);
	if (con)
		duckdb_disconnect(&con);
	if (db)
		duckdb_close(&db);
	stackset__free(us);
	stackset__free(ks);
	addrspace__free(as);
	return err;
}
