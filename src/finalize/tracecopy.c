#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "finalize/tracecopy.h"
#include "trace/stacknum.h"
#include "parquet/colbuf.h"
#include "parquet/strtab.h"

#define GROUP_ROWS (128u * 1024)

/* DuckDB types whose vectors hold exactly the C values colbuf__set takes. */
static const char *const duck_types[] = {
	[PQ_U8] = "UTINYINT", [PQ_U32] = "UINTEGER", [PQ_I32] = "INTEGER", [PQ_U64] = "UBIGINT",
	[PQ_I64] = "BIGINT", [PQ_BOOL] = "BOOLEAN", [PQ_STRING] = "VARCHAR",
	[PQ_STRING_LIST] = "VARCHAR[]",
};

/* One list column's lists in the current row group. */
struct copier_lists {
	struct pq_lists lists;
	uint32_t *offsets, *items;
	uint32_t nitems, cap_lists, cap_items;
};

/* One row group's columns and the strings and lists its ids refer to (each string or
 * list column has its own dictionary; list columns their own lists). */
struct copier {
	struct colbuf c;
	struct intern strs[TC__COUNT];
	struct pq_dict dicts[TC__COUNT];
	struct copier_lists lists[TC__COUNT];
	const struct trace_copy_relabel *rl;
	/* This group's stack_trace / stack_modules list ids by (stack_id, kernel_stack_id):
	 * rows with the same pair carry the same lists, so each is built once a group. */
	struct hmap by_stacks[2];
	/* stack_trace_id, recomputed (relabelling may make two lists one, or one two): a
	 * number per distinct content, by a 64-bit hash of the list's labels, for the file;
	 * list_key gives it for each of this group's stack_trace lists. */
	struct hmap file_keys;
	uint32_t nkeys, *list_key, cap_list_key;
	struct bitset keys_written;	/* for stack_trace_first */
};

/* Which by_stacks a column uses (-1: none). */
#define KEYED(col) ((col) == TC_STACK_TRACE ? 0 : (col) == TC_STACK_MODULES ? 1 : -1)

/* *p holds at least need entries. */
static int grow_u32(uint32_t **p, uint32_t *cap, uint32_t need)
{
	uint32_t n = *cap ? *cap : 4096, *q;

	while (n < need)
		n *= 2;
	if (n == *cap)
		return 0;
	q = realloc(*p, (size_t)n * sizeof(*q));
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* Append the TRACE_COPY_SEP-separated items of s to list l of column col. */
static int add_split(struct copier *k, int col, struct copier_lists *l, const char *s)
{
	for (const char *p = s;;) {
		const char *e = strchr(p, TRACE_COPY_SEP);
		size_t n = e ? (size_t)(e - p) : strlen(p);
		int64_t id;
		int err;

		if ((err = grow_u32(&l->items, &l->cap_items, l->nitems + 1)))
			return err;
		id = strtab__intern(&k->strs[col], p, n);
		if (id < 0)
			return (int)id;
		l->items[l->nitems++] = (uint32_t)id;
		if (!e)
			return 0;
		p = e + 1;
	}
}

/* list_key[id] for stack_trace list id of this group, just built. */
static int copier__key_list(struct copier *k, const struct copier_lists *l, uint32_t id)
{
	const struct intern *t = &k->strs[TC_STACK_TRACE];
	uint64_t h = HMAP_FNV_SEED;
	uint32_t key;
	int err;

	for (uint32_t i = l->offsets[id]; i < l->offsets[id + 1]; i++) {
		uint32_t item = l->items[i];
		/* Each label after its length (a NULL one: UINT32_MAX), so ["ab", "c"] and
		 * ["a", "bc"] differ. */
		uint32_t n = item == PQ_NULL_ITEM ? UINT32_MAX : t->lens[item];

		h = hmap__fnv1a(&n, sizeof(n), h);
		if (item != PQ_NULL_ITEM)
			h = hmap__fnv1a(t->strs[item], n, h);
	}
	if (!hmap__get(&k->file_keys, h, &key)) {
		key = k->nkeys++;
		if ((err = hmap__put(&k->file_keys, h, key)))
			return err;
	}
	if ((err = grow_u32(&k->list_key, &k->cap_list_key, id + 1)))
		return err;
	k->list_key[id] = key;
	return 0;
}

/* stack_trace_id and stack_trace_first of a row whose stack_trace is this group's list id. */
static int copier__set_key(struct copier *k, uint32_t id)
{
	return stacknum__set(&k->c, &k->keys_written, k->list_key[id]);
}

/* A new list of column col: prefix's items (NULL: none), then the child's [off, off + len)
 * items; returns its id or negative errno. */
static int64_t copier__list(struct copier *k, int col, const char *prefix, duckdb_vector child,
			    idx_t off, idx_t len)
{
	duckdb_string_t *s = duckdb_vector_get_data(child);
	uint64_t *mask = duckdb_vector_get_validity(child);
	struct copier_lists *l = &k->lists[col];
	int64_t id;
	int err;

	if ((err = grow_u32(&l->offsets, &l->cap_lists, l->lists.n + 2)))
		return err;
	l->offsets[l->lists.n] = l->nitems;
	if (prefix && (err = add_split(k, col, l, prefix)))
		return err;
	if ((err = grow_u32(&l->items, &l->cap_items, l->nitems + (uint32_t)len)))
		return err;
	for (idx_t j = off; j < off + len; j++) {
		id = PQ_NULL_ITEM;
		if (duckdb_validity_row_is_valid(mask, j)) {
			id = strtab__intern(&k->strs[col], duckdb_string_t_data(&s[j]),
					    duckdb_string_t_length(s[j]));
			if (id < 0)
				return id;
		}
		l->items[l->nitems++] = (uint32_t)id;
	}
	l->offsets[l->lists.n + 1] = l->nitems;
	if (col == TC_STACK_TRACE && (err = copier__key_list(k, l, l->lists.n)))
		return err;
	return l->lists.n++;
}

static int copier__cell(struct copier *k, int col, duckdb_vector v, idx_t r)
{
	void *d = duckdb_vector_get_data(v);
	duckdb_list_entry e;
	int64_t id;
	int err;

	switch (trace_schema[col].type) {
	case PQ_U8: colbuf__set(&k->c, col, ((uint8_t *)d)[r]); return 0;
	case PQ_BOOL: colbuf__set(&k->c, col, ((bool *)d)[r]); return 0;
	case PQ_U32:
	case PQ_I32: colbuf__set(&k->c, col, ((uint32_t *)d)[r]); return 0;
	case PQ_U64:
	case PQ_I64: colbuf__set(&k->c, col, ((uint64_t *)d)[r]); return 0;
	case PQ_STRING:
		id = strtab__intern(&k->strs[col], duckdb_string_t_data(&((duckdb_string_t *)d)[r]),
				    duckdb_string_t_length(((duckdb_string_t *)d)[r]));
		break;
	case PQ_STRING_LIST:
		e = ((duckdb_list_entry *)d)[r];
		id = copier__list(k, col, NULL, duckdb_list_vector_get_child(v), e.offset, e.length);
		if (id >= 0 && col == TC_STACK_TRACE && (err = copier__set_key(k, (uint32_t)id)))
			return err;
		break;
	default:
		return -EINVAL;
	}
	if (id < 0)
		return (int)id;
	colbuf__set(&k->c, col, (uint64_t)id);
	return 0;
}

/* Write the group, then start the next one with empty dictionaries and lists. */
static int copier__flush(struct copier *k, struct pq_writer *w)
{
	int err;

	for (int i = 0; i < TC__COUNT; i++) {
		struct copier_lists *l = &k->lists[i];

		k->dicts[i] = (struct pq_dict){ k->strs[i].strs, k->strs[i].lens, k->strs[i].n };
		l->lists = (struct pq_lists){ l->offsets, l->items, l->lists.n };
	}
	err = colbuf__flush(&k->c, w);
	for (int i = 0; i < TC__COUNT; i++) {
		intern__free(&k->strs[i]);
		memset(&k->strs[i], 0, sizeof(k->strs[i]));
		k->lists[i].lists.n = 0;
		k->lists[i].nitems = 0;
	}
	for (int i = 0; i < 2; i++)
		hmap__free(&k->by_stacks[i]);
	return err;
}

/* Position of "[kernel]" in row r's stack_trace (the list's length when absent). */
static idx_t kernel_pos(duckdb_vector trace, idx_t r)
{
	duckdb_list_entry e = ((duckdb_list_entry *)duckdb_vector_get_data(trace))[r];
	duckdb_vector child = duckdb_list_vector_get_child(trace);
	duckdb_string_t *s = duckdb_vector_get_data(child);
	uint64_t *mask = duckdb_vector_get_validity(child);

	for (idx_t j = 0; j < e.length; j++)
		if (duckdb_validity_row_is_valid(mask, e.offset + j) &&
		    stack_mark__is(duckdb_string_t_data(&s[e.offset + j]),
				   duckdb_string_t_length(s[e.offset + j]), STACK_MARK_KERNEL))
			return j;
	return e.length;
}

/* stack_trace or stack_modules of a row with stack ids: built once per group and pair,
 * with the user part from k->rl when it has new labels for sid. */
static int copier__stack_list(struct copier *k, int col, duckdb_vector vecs[TC__COUNT], idx_t r,
			      uint64_t key, uint32_t sid)
{
	struct hmap *seen = &k->by_stacks[KEYED(col)];
	duckdb_vector v = vecs[col];
	duckdb_list_entry e = ((duckdb_list_entry *)duckdb_vector_get_data(v))[r];
	char *user = NULL;
	uint32_t id32;
	int64_t id;
	idx_t kp;
	int err;

	if (hmap__get(seen, key, &id32)) {
		colbuf__set(&k->c, col, id32);
		return col == TC_STACK_TRACE ? copier__set_key(k, id32) : 0;
	}
	if (k->rl && sid < k->rl->n && k->rl->labels[sid])
		user = col == TC_STACK_TRACE ? k->rl->labels[sid] : k->rl->modules[sid];
	kp = user ? kernel_pos(vecs[TC_STACK_TRACE], r) : 0;
	if (kp > e.length)
		kp = e.length;
	id = copier__list(k, col, user, duckdb_list_vector_get_child(v), e.offset + kp, e.length - kp);
	if (id < 0)
		return (int)id;
	colbuf__set(&k->c, col, (uint64_t)id);
	if (col == TC_STACK_TRACE && (err = copier__set_key(k, (uint32_t)id)))
		return err;
	return hmap__put(seen, key, (uint32_t)id);
}

static int copier__chunk(struct copier *k, duckdb_data_chunk chunk, struct pq_writer *w)
{
	idx_t n = duckdb_data_chunk_get_size(chunk);
	duckdb_vector vecs[TC__COUNT];
	uint64_t *masks[TC__COUNT];
	int err = 0;

	for (int i = 0; i < TC__COUNT; i++) {
		vecs[i] = duckdb_data_chunk_get_vector(chunk, i);
		masks[i] = duckdb_vector_get_validity(vecs[i]);
	}
	for (idx_t r = 0; r < n && !err; r++) {
		/* The row's stack ids, each + 1 (0: none), as a key into by_stacks. */
		uint32_t sid1 = duckdb_validity_row_is_valid(masks[TC_STACK_ID], r) ?
			((uint32_t *)duckdb_vector_get_data(vecs[TC_STACK_ID]))[r] + 1 : 0;
		uint32_t kid1 = duckdb_validity_row_is_valid(masks[TC_KSTACK_ID], r) ?
			((uint32_t *)duckdb_vector_get_data(vecs[TC_KSTACK_ID]))[r] + 1 : 0;
		uint64_t key = (uint64_t)sid1 << 32 | kid1;

		for (int i = 0; i < TC__COUNT && !err; i++) {
			/* The input's stack_trace_id/_first are recomputed with stack_trace. */
			if (!duckdb_validity_row_is_valid(masks[i], r) || i == TC_STACK_TRACE_ID ||
			    i == TC_STACK_TRACE_FIRST)
				continue;
			if (key && KEYED(i) >= 0)
				err = copier__stack_list(k, i, vecs, r, key, sid1 - 1);
			else
				err = copier__cell(k, i, vecs[i], r);
		}
		if (!err && colbuf__next(&k->c))
			err = copier__flush(k, w);
	}
	return err;
}

/* "SELECT" and one expression per trace_schema column, cast to its writer type. */
static int build_select(duckdb_connection con, const char *from, struct strbuf *sql)
{
	bool have[TC__COUNT] = { false };
	struct strbuf probe = { 0 };
	duckdb_result res;
	int err = 0;

	strbuf__addf(&probe, "SELECT e.* %s LIMIT 0", from);
	err = probe.err;
	if (!err && duckdb_query(con, probe.s, &res) == DuckDBError) {
		log__error("cannot read the trace: %s", duckdb_result_error(&res));
		err = -EIO;
	}
	for (idx_t c = 0; !err && c < duckdb_column_count(&res); c++)
		for (int i = 0; i < TC__COUNT; i++)
			if (!strcmp(duckdb_column_name(&res, c), trace_schema[i].name))
				have[i] = true;
	if (!probe.err)
		duckdb_destroy_result(&res);
	strbuf__free(&probe);
	strbuf__add(sql, "SELECT ", 7);
	for (int i = 0; i < TC__COUNT; i++)
		strbuf__addf(sql, "%sCAST(%s%s%s AS %s)", i ? ", " : "", have[i] ? "e.\"" : "NULL",
			     have[i] ? trace_schema[i].name : "", have[i] ? "\"" : "",
			     duck_types[trace_schema[i].type]);
	strbuf__addf(sql, " %s", from);
	return err ? err : sql->err;
}

/* The rows as a streaming result: chunks are fetched as the writer consumes them. */
static int stream_query(duckdb_connection con, const char *sql, duckdb_result *res)
{
	duckdb_prepared_statement st = NULL;
	duckdb_pending_result pending = NULL;
	int err = 0;

	if (duckdb_prepare(con, sql, &st) == DuckDBError) {
		log__error("cannot read the trace: %s", duckdb_prepare_error(st));
		err = -EIO;
	} else if (duckdb_pending_prepared_streaming(st, &pending) == DuckDBError) {
		log__error("cannot read the trace: %s", duckdb_pending_error(pending));
		err = -EIO;
	} else if (duckdb_execute_pending(pending, res) == DuckDBError) {
		log__error("cannot read the trace: %s", duckdb_result_error(res));
		duckdb_destroy_result(res);
		err = -EIO;
	}
	duckdb_destroy_pending(&pending);
	duckdb_destroy_prepare(&st);
	return err;
}

int trace_copy__write(duckdb_connection con, const char *from,
		      const struct trace_copy_relabel *relabel, const char *path,
		      const struct pq_kv *kv, int nkv)
{
	struct copier k = { .rl = relabel };
	struct strbuf sql = { 0 };
	struct pq_writer *w = NULL;
	duckdb_data_chunk chunk;
	duckdb_result res;
	int err;

	err = build_select(con, from, &sql);
	if (!err)
		err = colbuf__init(&k.c, trace_schema__pq_columns(), TC__COUNT, GROUP_ROWS);
	if (!err)
		err = stream_query(con, sql.s, &res);
	strbuf__free(&sql);
	if (err)
		goto out;
	for (int i = 0; i < TC__COUNT; i++)
		if (trace_schema[i].type == PQ_STRING || trace_schema[i].type == PQ_STRING_LIST)
			colbuf__set_dict(&k.c, i, &k.dicts[i],
					 trace_schema[i].type == PQ_STRING_LIST ? &k.lists[i].lists : NULL);
	err = pq_writer__open(&w, path, trace_schema__pq_columns(), TC__COUNT, NULL);
	while (!err && (chunk = duckdb_fetch_chunk(res))) {
		err = copier__chunk(&k, chunk, w);
		duckdb_destroy_data_chunk(&chunk);
	}
	if (!err && duckdb_result_error(&res)) {
		log__error("cannot read the trace: %s", duckdb_result_error(&res));
		err = -EIO;
	}
	duckdb_destroy_result(&res);
	if (!err)
		err = copier__flush(&k, w);
	if (!err)
		err = pq_writer__close(w, kv, nkv);	/* unlinks on error */
	else
		pq_writer__abort(w);
out:
	for (int i = 0; i < TC__COUNT; i++)
		intern__free(&k.strs[i]);
	for (int i = 0; i < TC__COUNT; i++) {
		free(k.lists[i].offsets);
		free(k.lists[i].items);
	}
	for (int i = 0; i < 2; i++)
		hmap__free(&k.by_stacks[i]);
	hmap__free(&k.file_keys);
	free(k.list_key);
	bitset__free(&k.keys_written);
	colbuf__free(&k.c);
	return err;
}
