/* probex.exact at load, and its sums per event type for the endpoints. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "model/exact.h"
#include "trace/schema.h"

/* "[1,2,3]" into hist; buckets past the list stay 0. */
static void parse_hist(const char *s, uint64_t *hist)
{
	char *end;

	for (int i = 0; s && i < EXACT_HIST; i++) {
		while (*s == '[' || *s == ',' || *s == ' ')
			s++;
		if (*s < '0' || *s > '9')
			break;
		hist[i] = strtoull(s, &end, 10);
		s = end;
	}
}

static int query(duckdb_connection con, const struct trace_file *tf, const char *sql,
		 duckdb_result *res)
{
	if (duckdb_query(con, sql, res) == DuckDBError) {
		log__warn("%s: ignoring the exact counts: %s", tf->path, duckdb_result_error(res));
		duckdb_destroy_result(res);
		return -EIO;
	}
	return 0;
}

static int load_entries(duckdb_connection con, const struct trace_file *tf, struct exact_counts *x)
{
	duckdb_result res;
	char *sql;
	int err;

	if (asprintf(&sql, "SELECT (value->>'tgid')::UINTEGER, value->>'event_type', "
		     "coalesce((value->>'count')::UBIGINT, 0), coalesce((value->>'errors')::UBIGINT, 0), "
		     "coalesce((value->>'total_ns')::UBIGINT, 0), (value->'hist')::VARCHAR FROM json_each("
		     "(SELECT decode(value) FROM parquet_kv_metadata(%s) WHERE decode(key) = '%s' LIMIT 1)) "
		     "WHERE value->>'event_type' IS NOT NULL ORDER BY 2, 1", tf->literal, META_EXACT) < 0)
		return -ENOMEM;
	err = query(con, tf, sql, &res);
	free(sql);
	if (err)
		return err;
	x->n = duckdb_row_count(&res);
	x->e = calloc(x->n ? x->n : 1, sizeof(*x->e));
	for (size_t i = 0; x->e && i < x->n; i++) {
		struct exact_entry *e = &x->e[i];
		char *hist = duckdb_value_varchar(&res, 5, i);

		e->tgid = duckdb_value_uint32(&res, 0, i);
		e->type = duckdb_value_varchar(&res, 1, i);
		e->count = duckdb_value_uint64(&res, 2, i);
		e->errors = duckdb_value_uint64(&res, 3, i);
		e->total_ns = duckdb_value_uint64(&res, 4, i);
		parse_hist(hist, e->hist);
		duckdb_free(hist);
		x->counted += e->count;
		if (!e->type)
			err = -ENOMEM;
	}
	duckdb_destroy_result(&res);
	return x->e ? err : -ENOMEM;
}

/* Present when the key is; dropped: the ring buffer's losses of the record kinds the
 * exact counts cover (a waker stack is part of an off_cpu row, not a row). */
static int load_head(duckdb_connection con, const struct trace_file *tf, struct exact_counts *x)
{
	duckdb_result res;
	char *sql;
	int err;

	if (asprintf(&sql, "SELECT (SELECT count(*) FROM parquet_kv_metadata(%s) WHERE decode(key) = '%s'), "
		     "(SELECT coalesce(sum(value::UBIGINT), 0)::UBIGINT FROM json_each((SELECT decode(value) "
		     "FROM parquet_kv_metadata(%s) WHERE decode(key) = '%s' LIMIT 1)) WHERE key LIKE "
		     "'ringbuf\\_%%' ESCAPE '\\' AND key <> 'ringbuf_waker_stack')",
		     tf->literal, META_EXACT, tf->literal, META_DROPS) < 0)
		return -ENOMEM;
	err = query(con, tf, sql, &res);
	free(sql);
	if (err)
		return err;
	x->present = duckdb_value_uint64(&res, 0, 0) > 0;
	x->dropped = duckdb_value_uint64(&res, 1, 0);
	duckdb_destroy_result(&res);
	return 0;
}

int exact_counts__load(duckdb_connection con, const struct trace_file *tf, struct exact_counts *x)
{
	int err;

	memset(x, 0, sizeof(*x));
	err = load_head(con, tf, x);
	if (!err && x->present)
		err = load_entries(con, tf, x);
	/* Damaged metadata costs the marks, not the trace: its rows are still good. */
	if (err == -EIO) {
		exact_counts__free(x);
		return 0;
	}
	return err;
}

void exact_counts__free(struct exact_counts *x)
{
	for (size_t i = 0; i < x->n; i++)
		duckdb_free(x->e[i].type);
	free(x->e);
	memset(x, 0, sizeof(*x));
}

bool exact_counts__apply(const struct exact_counts *x, const struct model *m, const struct window *w)
{
	const char *last;
	uint32_t tgid;

	if (!x->present || w->start > m->min_ts || w->end < m->max_ts)
		return false;
	if (!w->has_pid)
		return true;	/* all, or a whole process: per-process counts hold */
	for (uint32_t i = 0; i < m->npids; i++)
		if (m->pids[i] != w->pid && model__name_info(m, m->pids[i], &last, &tgid) &&
		    tgid == w->pid)
			return false;
	return true;
}

bool exact_counts__sum(const struct exact_counts *x, const struct window *w, const char *type,
		       struct exact_sum *s)
{
	size_t lo = 0, hi = x->n;
	bool found = false;

	memset(s, 0, sizeof(*s));
	/* Entries are in type order: the first of type, then its run. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(x->e[mid].type, type) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < x->n && !strcmp(x->e[i].type, type); i++) {
		const struct exact_entry *e = &x->e[i];

		if ((w->has_pid && e->tgid != w->pid) || (w->has_tgid && e->tgid != w->tgid))
			continue;
		found = true;
		s->count += e->count;
		s->errors += e->errors;
		s->total_ns += e->total_ns;
		for (int k = 0; k < EXACT_HIST; k++)
			s->hist[k] += e->hist[k];
	}
	return found;
}
