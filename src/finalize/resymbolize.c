#include <duckdb.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/outfile.h"
#include "common/strbuf.h"
#include "symbolize/addrspace.h"
#include "trace/duck.h"
#include "finalize/jitmaps.h"
#include "finalize/pyframes.h"
#include "finalize/labels.h"
#include "finalize/resymbolize.h"
#include "finalize/stackset.h"
#include "finalize/symdata.h"
#include "finalize/tracecopy.h"

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

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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

/* The labeller's counters of this run replace the recorded ones (kv has room for one more
 * entry: read_kv allocates rows + 1). */
static int set_stats(struct kv_list *kv, const struct labeler_stats *ls)
{
	char *json = labeler__stats_json(ls), *val;
	int i;

	if (!json)
		return -ENOMEM;
	val = duckdb_malloc(strlen(json) + 1);
	if (val)
		strcpy(val, json);
	free(json);
	if (!val)
		return -ENOMEM;
	for (i = 0; i < kv->n && strcmp(kv->key[i], META_SYMBOLIZE); i++)
		;
	if (i == kv->n) {
		kv->key[i] = duckdb_malloc(sizeof(META_SYMBOLIZE));
		if (!kv->key[i]) {
			duckdb_free(val);
			return -ENOMEM;
		}
		strcpy(kv->key[i], META_SYMBOLIZE);
		kv->val[i] = NULL;
		kv->n++;
	}
	duckdb_free(kv->val[i]);
	kv->val[i] = val;
	return 0;
}

static void relabel_free(struct trace_copy_relabel *rl)
{
	for (uint32_t i = 0; i < rl->n; i++) {
		free(rl->labels[i]);
		free(rl->modules[i]);
	}
	free(rl->labels);
	free(rl->modules);
}

/* New user labels and objects of every user stack, joined by TRACE_COPY_SEP. */
static int load_labels(struct labeler *l, struct stackset *us, struct trace_copy_relabel *rl)
{
	struct strbuf s = { 0 }, m = { 0 };
	struct stack_entry e;
	int err = 0;

	rl->n = stackset__count(us);
	rl->labels = calloc(rl->n + 1, sizeof(char *));
	rl->modules = calloc(rl->n + 1, sizeof(char *));
	if (!rl->labels || !rl->modules)
		return -ENOMEM;
	for (uint32_t id = 0; id < rl->n && !err; id++) {
		stackset__get(us, id, &e);
		s.len = 0;
		m.len = 0;
		err = labeler__user(l, &e, &s, &m) ?: s.err ?: m.err;
		if (err)
			break;
		/* Skip the leading separator. */
		rl->labels[id] = strdup(s.s + 1);
		rl->modules[id] = strdup(m.s + 1);
		if (!rl->labels[id] || !rl->modules[id])
			err = -ENOMEM;
	}
	strbuf__free(&s);
	strbuf__free(&m);
	return err;
}

/* The input's rows in file order with new user labels, the kernel part of each old list
 * kept as it was. */
static int write_out(duckdb_connection con, const char *in_lit, const char *tmp, struct kv_list *kv,
		     const struct trace_copy_relabel *rl)
{
	struct pq_kv *pkv = calloc((size_t)kv->n + 1, sizeof(*pkv));
	struct strbuf from = { 0 };
	int err, n = 0;

	/* The input's ARROW:schema too: the writer replaces it with its own. */
	for (int i = 0; pkv && i < kv->n; i++)
		pkv[n++] = (struct pq_kv){ kv->key[i], kv->val[i] };
	strbuf__addf(&from, "FROM read_parquet(%s) e", in_lit);
	err = !pkv ? -ENOMEM : from.err ? from.err : trace_copy__write(con, from.s, rl, tmp, pkv, n);
	strbuf__free(&from);
	free(pkv);
	return err;
}

int resymbolize__run(const char *in, const char *out, bool force)
{
	const char *data = NULL;
	struct kv_list kv = { 0 };
	struct trace_copy_relabel rl = { 0 };
	struct labeler_stats ls;
	struct labeler *l = NULL;
	struct addrspace *as = addrspace__new();
	struct stackset *us = stackset__new(), *ks = stackset__new();
	struct jitmaps *jit = jitmaps__new();
	struct pyframes *py = pyframes__new();
	duckdb_database db = NULL;
	duckdb_connection con = NULL;
	char lit[8400], tmp[4200];
	struct stat st;
	double t0 = now_s();
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
	err = jit && py ? symdata__decode(data, as, us, ks, jit, py) : -ENOMEM;
	pyframes__build(py);
	if (err) {
		log__error("%s: damaged %s metadata", in, META_SYMBOL_DATA);
		goto cleanup;
	}
	log__debug("resymbolize: read %.3f s", now_s() - t0);
	l = labeler__new(as, NULL);
	if (l) {
		labeler__set_jitmaps(l, jit);
		labeler__set_pyframes(l, py);
	}
	err = l ? load_labels(l, us, &rl) : -ENOMEM;
	log__debug("resymbolize: %u stacks labelled %.3f s", stackset__count(us), now_s() - t0);
	if (err)
		goto cleanup;
	labeler__stats(l, &ls);
	err = set_stats(&kv, &ls);
	if (err)
		goto cleanup;
	err = outfile__tmp_name(tmp, sizeof(tmp), out);
	if (!err && lstat(tmp, &st) == 0)
		err = -EEXIST;	/* not ours: leave it be */
	if (err) {
		log__error("cannot create %s: %s", tmp, strerror(-err));
		goto cleanup;
	}
	err = write_out(con, lit, tmp, &kv, &rl);
	log__debug("resymbolize: written %.3f s", now_s() - t0);
	if (err) {
		unlink(tmp);
		log__error("cannot write %s: %s", out, strerror(-err));
		goto cleanup;
	}
	/* In place (out is the input): replacing it is what was asked. */
	err = outfile__commit(tmp, out, force || !strcmp(in, out));
	if (err) {
		unlink(tmp);
		goto cleanup;
	}
	log__info("re-symbolized %u stacks: %llu of %llu user frames named; wrote %s", stackset__count(us),
		  (unsigned long long)ls.user_symbolized, (unsigned long long)ls.user_frames, out);
cleanup:
	relabel_free(&rl);
	labeler__free(l);
	jitmaps__free(jit);
	pyframes__free(py);
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
