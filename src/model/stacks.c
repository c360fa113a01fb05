/* Pass 2 over a trace: stack lists, interned once each.  A file that numbers its lists
 * (stack_trace_id, with stack_trace_first on one row per number) has its distinct lists
 * read from those rows only and every row's number; otherwise DuckDB hashes every list on
 * its own threads and a list's labels are read in C only the first time its hash is seen. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bigmem.h"
#include "common/hmap.h"
#include "common/log.h"
#include "common/test_hooks.h"
#include "model/scan.h"
#include "model/sink.h"

struct stacker {
	const struct trace_file *tf;
	struct trace_rows *r;
	uint64_t done;			/* rows seen (atomic: sinks run on DuckDB's threads) */
	const volatile bool *cancel;
	pthread_mutex_t lock;		/* the stack tables, shared by the sink threads */
	unsigned int generation;	/* tells per-thread memos which scan they belong to */
	struct hmap stack_map;		/* DuckDB list hash → stack id */
	struct hmap content_map;	/* label-content hash → stack id */
	uint64_t label_cap, pool_len, pool_cap;
	uint32_t stack_cap;
	uint64_t unnumbered;		/* numbered path: rows whose number has no first row */
};

static int grow(void **p, uint64_t *cap, uint64_t need, size_t elem)
{
	uint64_t c = *cap ? *cap : 256;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	q = realloc(*p, c * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

static int add_stack_slot(struct stacker *sc, uint32_t first, uint32_t count, uint32_t *id)
{
	struct trace_rows *r = sc->r;
	uint64_t cap = sc->stack_cap;

	if (grow((void **)&r->stack_first, &cap, r->nstacks + 1, sizeof(uint32_t)))
		return -ENOMEM;
	cap = sc->stack_cap;
	if (grow((void **)&r->stack_count, &cap, r->nstacks + 1, sizeof(uint32_t)))
		return -ENOMEM;
	sc->stack_cap = (uint32_t)cap;
	r->stack_first[r->nstacks] = first;
	r->stack_count[r->nstacks] = count;
	*id = r->nstacks++;
	return 0;
}

/* A list seen for the first time: keep its non-empty labels (the 0.1 viewer API shows no
 * empty ones), and share the id with an identical label list met under another hash. */
static int intern_stack(struct stacker *sc, duckdb_vector list, uint64_t i, uint64_t hash,
			uint32_t *id)
{
	duckdb_list_entry *e = (duckdb_list_entry *)duckdb_vector_get_data(list) + i;
	duckdb_vector child = duckdb_list_vector_get_child(list);
	uint64_t *cvalid = duckdb_vector_get_validity(child);
	void *cdata = duckdb_vector_get_data(child);
	struct trace_rows *r = sc->r;
	uint64_t first = r->nlabels, h = HMAP_FNV_SEED, pool0 = sc->pool_len;
	uint32_t n = 0, other;

	for (uint64_t k = e->offset; k < e->offset + e->length; k++) {
		uint32_t len;
		const char *s;

		if (cvalid && !duckdb_validity_row_is_valid(cvalid, k))
			return -EBADMSG;	/* the caller names the row */
		s = trace_file__cell(cdata, k, &len);
		if (!len)
			continue;
		if (grow((void **)&r->label_off, &sc->label_cap, r->nlabels + 1, sizeof(uint64_t)))
			return -ENOMEM;
		r->label_len = realloc(r->label_len, sc->label_cap * sizeof(uint32_t));
		if (!r->label_len || grow((void **)&r->pool, &sc->pool_cap, sc->pool_len + len + 1, 1))
			return -ENOMEM;
		memcpy(r->pool + sc->pool_len, s, len);
		r->pool[sc->pool_len + len] = 0;
		r->label_off[r->nlabels] = sc->pool_len;
		r->label_len[r->nlabels++] = len;
		/* The pool's copy, with its NUL: labels ["ab", "c"] and ["a", "bc"] differ. */
		h = hmap__fnv1a(r->pool + sc->pool_len, len + 1, h);
		sc->pool_len += len + 1;
		n++;
	}
	if (!n) {
		*id = STACK_EMPTY;
	} else if (hmap__get(&sc->content_map, h, &other) && r->stack_count[other] == n &&
		   !memcmp(r->pool + r->label_off[r->stack_first[other]], r->pool + pool0,
			   sc->pool_len - pool0)) {
		*id = other;	/* same labels: drop the copy */
		r->nlabels = first;
		sc->pool_len = pool0;
	} else {
		if (add_stack_slot(sc, (uint32_t)first, n, id) || hmap__put(&sc->content_map, h, *id))
			return -ENOMEM;
	}
	return hmap__put(&sc->stack_map, hash, *id);
}

/* Per-thread memo of list hash → stack id, so the sink threads take the lock only for
 * hashes they have not met (a few thousand in a trace) rather than for every row. */
#define MEMO_SLOTS 4096
struct stack_memo {
	unsigned int generation;
	uint64_t key[MEMO_SLOTS];
	uint32_t val[MEMO_SLOTS];
	bool used[MEMO_SLOTS];
};
static pthread_key_t memo_key;
static pthread_once_t memo_once = PTHREAD_ONCE_INIT;

static void memo_key_init(void)
{
	/* DuckDB's worker threads outlive a scan; the memo goes when the thread does. */
	pthread_key_create(&memo_key, free);
}

static struct stack_memo *memo_for(unsigned int generation)
{
	struct stack_memo *memo;

	pthread_once(&memo_once, memo_key_init);
	memo = pthread_getspecific(memo_key);
	if (!memo) {
		memo = malloc(sizeof(*memo));
		if (!memo || pthread_setspecific(memo_key, memo)) {
			free(memo);
			return NULL;
		}
		memo->generation = generation - 1;
	}
	if (memo->generation != generation) {
		memset(memo->used, 0, sizeof(memo->used));
		memo->generation = generation;
	}
	return memo;
}

static void stacks_sink(duckdb_function_info info, duckdb_data_chunk chunk, duckdb_vector out)
{
	struct stacker *sc = duckdb_scalar_function_get_extra_info(info);
	struct trace_rows *r = sc->r;
	idx_t n = duckdb_data_chunk_get_size(chunk);
	uint64_t *rown = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 0));
	uint64_t *hash = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 1));
	duckdb_vector lists = duckdb_data_chunk_get_vector(chunk, 2);
	uint64_t *lvalid = duckdb_vector_get_validity(lists);
	struct stack_memo *m = memo_for(sc->generation);
	uint32_t *res = duckdb_vector_get_data(out);
	int err = 0;

	if (!m) {
		duckdb_scalar_function_set_error(info, "out of memory");
		return;
	}
	if (sc->cancel && *sc->cancel) {
		duckdb_scalar_function_set_error(info, "cancelled");
		return;
	}
	for (idx_t i = 0; i < n; i++) {
		uint64_t row = rown[i], h = hash[i], slot = hmap__hash(h) & (MEMO_SLOTS - 1);
		uint32_t id;

		if (row >= r->n) {
			duckdb_scalar_function_set_error(info, "row count changed while reading");
			return;
		}
		if (!sink__valid(lvalid, i)) {
			res[i] = r->stack[row] = STACK_NULL;
			continue;
		}
		if (m->used[slot] && m->key[slot] == h && m->val[slot] < STACK_WIDE) {
			res[i] = r->stack[row] = (uint16_t)m->val[slot];
			continue;
		}
		pthread_mutex_lock(&sc->lock);
		if (!hmap__get(&sc->stack_map, h, &id))
			err = intern_stack(sc, lists, i, h, &id);
		if (!err && id >= STACK_WIDE)
			err = hmap__put(&r->stack_wide, row, id);
		pthread_mutex_unlock(&sc->lock);
		if (err) {
			char msg[96];

			snprintf(msg, sizeof(msg), err == -ENOMEM ? "out of memory" :
				 "the stack_trace of row %llu contains a NULL label", (unsigned long long)row);
			duckdb_scalar_function_set_error(info, msg);
			return;
		}
		m->used[slot] = true;
		m->key[slot] = h;
		m->val[slot] = id;
		res[i] = id;
		r->stack[row] = id < STACK_WIDE ? (uint16_t)id : STACK_WIDE;
	}
	__atomic_add_fetch(&sc->done, n, __ATOMIC_RELAXED);
}

/* Run fn over every row of the file as fn(file_row_number, <args>): the args' first is a
 * UBIGINT, then the stack_trace list when with_list. */
static int run_sink(duckdb_connection con, struct stacker *sc, const char *prefix,
		    duckdb_scalar_function_t fn, bool with_list, const char *args)
{
	static const duckdb_type types[2] = { DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_UBIGINT };
	struct sink_spec spec = { prefix, fn, sc, types, 2, with_list, DUCKDB_TYPE_UINTEGER };
	char name[48], *sql = NULL;
	int err;

	if (sink__register(con, &spec, name, sizeof(name))) {
		log__error("%s: cannot register %s", sc->tf->path, name);
		return -EIO;
	}
	if (asprintf(&sql, "SELECT count(%s(file_row_number, %s)) FROM read_parquet(%s, "
			   "file_row_number = true)", name, args, sc->tf->literal) < 0)
		return -ENOMEM;
	err = sink__run(con, sql, sc->tf->path, sc->cancel);
	free(sql);
	return err;
}

/* ---- Files that number their lists (stack_trace_id, stack_trace_first) ---- */

/* The distinct lists, from their first rows only: stack_map takes number → stack id. */
static int read_first_lists(duckdb_connection con, struct stacker *sc)
{
	duckdb_result res;
	duckdb_data_chunk chunk;
	char *sql;
	int err = 0;

	if (asprintf(&sql, "SELECT CAST(stack_trace_id AS UBIGINT), stack_trace FROM %s "
			   "WHERE stack_trace_first AND stack_trace_id IS NOT NULL", sc->tf->source) < 0)
		return -ENOMEM;
	if (duckdb_query(con, sql, &res) == DuckDBError) {
		log__debug("%s: stack lists by number: %s", sc->tf->path, duckdb_result_error(&res));
		err = -EIO;
	}
	free(sql);
	while (!err && (chunk = duckdb_fetch_chunk(res))) {
		idx_t n = duckdb_data_chunk_get_size(chunk);
		duckdb_vector keys = duckdb_data_chunk_get_vector(chunk, 0);
		duckdb_vector lists = duckdb_data_chunk_get_vector(chunk, 1);
		uint64_t *key = duckdb_vector_get_data(keys), *lvalid = duckdb_vector_get_validity(lists);
		uint32_t id;

		/* Two first rows of one number (files concatenated by a query, each numbered
		 * on its own): the numbers say nothing, every list is read instead. */
		for (idx_t i = 0; i < n && !err; i++)
			if (sink__valid(lvalid, i))
				err = hmap__get(&sc->stack_map, key[i], &id) ? -ENOENT :
				      intern_stack(sc, lists, i, key[i], &id);
		duckdb_destroy_data_chunk(&chunk);
	}
	duckdb_destroy_result(&res);
	return err;
}

/* Each row's stack id from its number; stack_map is complete and only read here. */
static void numbers_sink(duckdb_function_info info, duckdb_data_chunk chunk, duckdb_vector out)
{
	struct stacker *sc = duckdb_scalar_function_get_extra_info(info);
	struct trace_rows *r = sc->r;
	idx_t n = duckdb_data_chunk_get_size(chunk);
	uint64_t *rown = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 0));
	duckdb_vector keys = duckdb_data_chunk_get_vector(chunk, 1);
	uint64_t *key = duckdb_vector_get_data(keys), *kvalid = duckdb_vector_get_validity(keys);
	uint64_t last_key = UINT64_MAX, missing = 0;
	uint32_t id = STACK_NULL;
	int err = 0;

	if (sc->cancel && *sc->cancel) {
		duckdb_scalar_function_set_error(info, "cancelled");
		return;
	}
	for (idx_t i = 0; i < n; i++) {
		uint64_t row = rown[i];

		if (row >= r->n) {
			duckdb_scalar_function_set_error(info, "row count changed while reading");
			return;
		}
		if (!sink__valid(kvalid, i)) {
			r->stack[row] = STACK_NULL;
			continue;
		}
		/* Runs of rows share a stack: look each number up once a run. */
		if (key[i] != last_key && !hmap__get(&sc->stack_map, key[i], &id)) {
			missing++;
			id = STACK_NULL;
		}
		last_key = key[i];
		if (id >= STACK_WIDE) {
			pthread_mutex_lock(&sc->lock);
			err = hmap__put(&r->stack_wide, row, id);
			pthread_mutex_unlock(&sc->lock);
			if (err) {
				duckdb_scalar_function_set_error(info, "out of memory");
				return;
			}
		}
		r->stack[row] = id < STACK_WIDE ? (uint16_t)id : STACK_WIDE;
	}
	if (missing)
		__atomic_add_fetch(&sc->unnumbered, missing, __ATOMIC_RELAXED);
	__atomic_add_fetch(&sc->done, n, __ATOMIC_RELAXED);
	memset(duckdb_vector_get_data(out), 0, n * sizeof(uint32_t));
}

/* 0, or -ENOENT when the numbers cannot be trusted (a row's number has no first row,
 * e.g. a file filtered by a query that kept the columns): the caller reads every list. */
static int scan_numbered(duckdb_connection con, struct stacker *sc)
{
	int err;

	if ((err = read_first_lists(con, sc)))
		return err == -ENOMEM ? err : -ENOENT;
	err = run_sink(con, sc, "probex_stack_numbers", numbers_sink, false,
		       "CAST(stack_trace_id AS UBIGINT)");
	if (!err && sc->unnumbered) {
		log__debug("%s: %llu rows' stack_trace_id has no first row; reading every list",
			   sc->tf->path, (unsigned long long)sc->unnumbered);
		return -ENOENT;
	}
	return err;
}

/* Back to no stacks read (before the hash path, after a failed numbered one). */
static void stacker_reset(struct stacker *sc)
{
	struct trace_rows *r = sc->r;

	hmap__free(&sc->stack_map);
	hmap__free(&sc->content_map);
	hmap__free(&r->stack_wide);
	r->nstacks = 2;		/* the fixed ids stay */
	r->nlabels = 0;
	sc->pool_len = 0;
	sc->done = 0;
	sc->generation = sink__generation();
}

/* The hash path: DuckDB hashes each list on its own threads; a list's labels are read
 * only the first time its hash is seen.  A 64-bit collision between two different stacks
 * of one trace (odds ~1e-11 for 10^4 stacks) would merge them. */
static int scan_hashed(duckdb_connection con, struct stacker *sc)
{
	return run_sink(con, sc, "probex_stacks", stacks_sink, true, "hash(stack_trace), stack_trace");
}

int trace_rows__scan_stacks(duckdb_connection con, const struct trace_file *tf,
			    const volatile bool *cancel, struct trace_rows *rows)
{
	struct stacker sc = { .tf = tf, .r = rows, .cancel = cancel,
			      .lock = PTHREAD_MUTEX_INITIALIZER };
	uint32_t id;
	int err;

	sc.generation = sink__generation();
	rows->stack = bigmem__alloc((rows->n ? rows->n : 1) * sizeof(*rows->stack));
	if (!rows->stack)
		return -ENOMEM;
	/* Stack ids 0 (NULL) and 1 (no labels) are fixed. */
	if ((err = add_stack_slot(&sc, 0, 0, &id)) || (err = add_stack_slot(&sc, 0, 0, &id)))
		goto cleanup;
	err = -ENOENT;
	if (tf->has_stack_trace_id && !test_hooks__hash_stacks())
		err = scan_numbered(con, &sc);
	if (err == -ENOENT) {
		stacker_reset(&sc);
		err = scan_hashed(con, &sc);
	}
	if (!err && sc.done != rows->n) {
		log__error("%s: expected %llu stacks, read fewer: the file is damaged", tf->path,
			   (unsigned long long)rows->n);
		err = -EINVAL;
	}
cleanup:
	hmap__free(&sc.stack_map);
	hmap__free(&sc.content_map);
	pthread_mutex_destroy(&sc.lock);
	return err;
}

