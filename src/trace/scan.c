#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bigmem.h"
#include "common/hmap.h"
#include "common/log.h"
#include "trace/duck.h"
#include "trace/scan.h"
#include "trace/schema.h"

/* Columns of the row query, in SELECT order. */
enum scol {
	C_ROW, C_TYPE, C_TS, C_PID, C_COUNT, C_RET, C_SUBMIT, C_RES, C_CHILD, C_PARENT, C_EXIT,
	C_LAT, C_WEIGHT, C__COUNT,
};

struct scanner {
	const struct trace_file *tf;
	struct trace_rows *r;
	uint64_t cap;			/* rows allocated */
	uint64_t done;			/* rows received (atomic: sinks run on DuckDB's threads) */
	const volatile bool *cancel;
	pthread_mutex_t lock;		/* the stack tables, shared by the sink threads */
	unsigned int generation;	/* tells thread-local caches which scan they belong to */
	struct hmap stack_map;		/* DuckDB list hash → stack id */
	struct hmap content_map;	/* label-content hash → stack id */
	uint64_t label_cap, pool_len, pool_cap;
	uint32_t stack_cap;
	int8_t a_col[256], b_col[256];
};

static inline bool valid(const uint64_t *v, idx_t i)
{
	return !v || (v[i >> 6] >> (i & 63)) & 1;
}

static uint64_t fnv(const char *s, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static int fail(struct scanner *sc, const char *fmt, unsigned long long row)
{
	char msg[256];

	snprintf(msg, sizeof(msg), fmt, row);
	log__error("%s: %s", sc->tf->path, msg);
	return -EINVAL;
}

/* Which source columns feed a and b for a given event type (see scan.h). */
static void type_slots(struct scanner *sc, unsigned int code, int ev)
{
	sc->a_col[code] = sc->b_col[code] = -1;
	switch (ev) {
	case EV_READ_ENTER: case EV_WRITE_ENTER: case EV_MMAP_ENTER: case EV_MUNMAP_ENTER:
		sc->a_col[code] = C_COUNT;
		break;
	case EV_READ_EXIT: case EV_WRITE_EXIT: case EV_MMAP_EXIT: case EV_MUNMAP_EXIT:
	case EV_BRK_EXIT: case EV_FSYNC_EXIT: case EV_FDATASYNC_EXIT: case EV_IO_URING_SETUP_EXIT:
	case EV_IO_URING_ENTER_EXIT: case EV_IO_URING_REGISTER_EXIT:
		sc->a_col[code] = C_RET;
		break;
	case EV_IO_URING_COMPLETE:
		sc->a_col[code] = C_SUBMIT;
		sc->b_col[code] = C_RES;
		break;
	case EV_PROCESS_FORK:
		sc->a_col[code] = C_CHILD;
		sc->b_col[code] = C_PARENT;
		break;
	case EV_PROCESS_EXIT:
		sc->a_col[code] = C_EXIT;
		break;
	default:
		break;
	}
}

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

static int add_stack_slot(struct scanner *sc, uint32_t first, uint32_t count, uint32_t *id)
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

/* A list seen for the first time: keep its non-empty labels (the reference drops empty
 * ones), and share the id with an identical label list met under another hash. */
static int intern_stack(struct scanner *sc, duckdb_vector list, uint64_t i, uint64_t row,
			uint64_t hash, uint32_t *id)
{
	duckdb_list_entry *e = (duckdb_list_entry *)duckdb_vector_get_data(list) + i;
	duckdb_vector child = duckdb_list_vector_get_child(list);
	uint64_t *cvalid = duckdb_vector_get_validity(child);
	void *cdata = duckdb_vector_get_data(child);
	struct trace_rows *r = sc->r;
	uint64_t first = r->nlabels, h = 0xcbf29ce484222325ull, pool0 = sc->pool_len;
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
		sc->pool_len += len + 1;
		h = fnv(s, len + 1, h);
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

static int alloc_rows(struct scanner *sc, uint64_t n)
{
	struct trace_rows *r = sc->r;
	uint64_t c = n ? n : 1;

	sc->cap = c;
	r->ts = bigmem__alloc(c * sizeof(*r->ts));
	r->pid = bigmem__alloc(c * sizeof(*r->pid));
	r->type = bigmem__alloc(c);
	r->a = bigmem__alloc(c * sizeof(*r->a));
	r->b = bigmem__alloc(c * sizeof(*r->b));
	r->flags = bigmem__alloc(c);
	if (sc->tf->has_latency_ns)
		r->latency = bigmem__alloc(c * sizeof(*r->latency));
	if (sc->tf->has_stack_weight)
		r->weight = bigmem__alloc(c * sizeof(*r->weight));
	if (!r->ts || !r->pid || !r->type || !r->a || !r->b || !r->flags ||
	    (sc->tf->has_latency_ns && !r->latency) || (sc->tf->has_stack_weight && !r->weight))
		return -ENOMEM;
	return 0;
}


/* Pass 1 sink: DuckDB calls it on its worker threads with batches of rows; each row
 * carries its file row number and lands in its own slot, so no lock is needed. */
static void rows_sink(duckdb_function_info info, duckdb_data_chunk chunk, duckdb_vector out)
{
	struct scanner *sc = duckdb_scalar_function_get_extra_info(info);
	struct trace_rows *r = sc->r;
	idx_t n = duckdb_data_chunk_get_size(chunk);
	bool *res = duckdb_vector_get_data(out);
	void *d[C__COUNT];
	uint64_t *v[C__COUNT];
	char msg[160];

	for (idx_t c = 0; c < C__COUNT; c++) {
		duckdb_vector vec = duckdb_data_chunk_get_vector(chunk, c);

		d[c] = duckdb_vector_get_data(vec);
		v[c] = duckdb_vector_get_validity(vec);
	}
	if (sc->cancel && *sc->cancel) {
		duckdb_scalar_function_set_error(info, "cancelled");
		return;
	}
	for (idx_t i = 0; i < n; i++) {
		uint64_t row = ((uint64_t *)d[C_ROW])[i];
		uint8_t code = ((uint8_t *)d[C_TYPE])[i], f = 0;
		int ca = sc->a_col[code], cb = sc->b_col[code];

		res[i] = true;
		if (row >= sc->cap) {
			duckdb_scalar_function_set_error(info, "row count changed while reading");
			return;
		}
		if (!valid(v[C_TS], i) || !valid(v[C_PID], i)) {
			snprintf(msg, sizeof(msg), "row %llu has a NULL ts_ns or pid", (unsigned long long)row);
			duckdb_scalar_function_set_error(info, msg);
			return;
		}
		r->type[row] = code;
		r->ts[row] = ((uint64_t *)d[C_TS])[i];
		r->pid[row] = ((uint32_t *)d[C_PID])[i];
		if (ca >= 0 && valid(v[ca], i)) {
			r->a[row] = ((uint64_t *)d[ca])[i];
			f |= ROW_A;
		}
		if (cb >= 0 && valid(v[cb], i)) {
			r->b[row] = ((uint64_t *)d[cb])[i];
			f |= ROW_B;
		}
		if (r->latency && valid(v[C_LAT], i)) {
			r->latency[row] = ((uint64_t *)d[C_LAT])[i];
			f |= ROW_LAT;
		}
		if (r->weight)
			r->weight[row] = valid(v[C_WEIGHT], i) ? ((uint32_t *)d[C_WEIGHT])[i] : 1;
		r->flags[row] = f;
	}
	__atomic_add_fetch(&sc->done, n, __ATOMIC_RELAXED);
}

static int row_count(duckdb_connection con, const struct trace_file *tf, uint64_t *n)
{
	duckdb_result res;
	char *sql;
	int err = 0;

	if (asprintf(&sql, "SELECT count(*)::UBIGINT FROM %s", tf->source) < 0)
		return -ENOMEM;
	if (duckdb_query(con, sql, &res) == DuckDBError) {
		log__error("%s: %s", tf->path, duckdb_result_error(&res));
		err = -EIO;
	} else {
		*n = duckdb_value_uint64(&res, 0, 0);
	}
	duckdb_destroy_result(&res);
	free(sql);
	return err;
}

/* Run SQL that returns a small materialised result. */
static int small_query(duckdb_connection con, const struct trace_file *tf, const char *sql,
		       duckdb_result *res)
{
	if (duckdb_query(con, sql, res) == DuckDBError) {
		log__error("%s: cannot read: %s", tf->path, duckdb_result_error(res));
		duckdb_destroy_result(res);
		return -EIO;
	}
	return 0;
}

/* The distinct event types become codes 0..n-1 in name order (a temporary table the row
 * query joins, so DuckDB turns strings into codes on its own threads). */
static int read_types(struct scanner *sc, duckdb_connection con)
{
	const struct trace_file *tf = sc->tf;
	struct trace_rows *r = sc->r;
	duckdb_result res;
	char *sql = NULL;
	idx_t n;
	int err;

	if (asprintf(&sql, "CREATE OR REPLACE TEMP TABLE probex_types AS "
			   "SELECT name, (row_number() OVER (ORDER BY name) - 1)::UTINYINT AS code "
			   "FROM (SELECT DISTINCT event_type AS name FROM %s)", tf->source) < 0)
		return -ENOMEM;
	err = duck__exec(con, sql);
	free(sql);
	if (err) {
		log__error("%s: cannot read event types", tf->path);
		return err;
	}
	if ((err = small_query(con, tf, "SELECT name FROM probex_types ORDER BY code", &res)))
		return err;
	n = duckdb_row_count(&res);
	if (n > 256) {
		log__error("%s: more than 256 distinct event types", tf->path);
		err = -EINVAL;
	}
	for (idx_t i = 0; !err && i < n; i++) {
		if (duckdb_value_is_null(&res, 0, i)) {
			log__error("%s: some rows have a NULL event_type", tf->path);
			err = -EINVAL;
			break;
		}
		r->type_names[i] = duckdb_value_varchar(&res, 0, i);
		if (!r->type_names[i]) {
			err = -ENOMEM;
			break;
		}
		r->ntypes++;
		r->type_event[i] = event_type__from_name(r->type_names[i]);
		type_slots(sc, (unsigned int)i, r->type_event[i]);
	}
	duckdb_destroy_result(&res);
	return err;
}

/* First non-empty process_name per pid in (ts, file row) order, the reference's rule. */
static int read_names(struct scanner *sc, duckdb_connection con)
{
	const struct trace_file *tf = sc->tf;
	struct trace_rows *r = sc->r;
	duckdb_result res;
	char *sql = NULL;
	idx_t n;
	int err;

	if (asprintf(&sql, "SELECT pid::UINTEGER AS p, arg_min(process_name, (ts_ns, file_row_number)) "
			   "FROM read_parquet(%s, file_row_number = true) "
			   "WHERE process_name IS NOT NULL AND process_name <> '' GROUP BY p ORDER BY p",
		     tf->literal) < 0)
		return -ENOMEM;
	err = small_query(con, tf, sql, &res);
	free(sql);
	if (err)
		return err;
	n = duckdb_row_count(&res);
	r->name_pid = malloc((n + 1) * sizeof(*r->name_pid));
	r->name = calloc(n + 1, sizeof(*r->name));
	if (!r->name_pid || !r->name)
		err = -ENOMEM;
	for (idx_t i = 0; !err && i < n; i++) {
		r->name_pid[i] = duckdb_value_uint32(&res, 0, i);
		r->name[i] = duckdb_value_varchar(&res, 1, i);
		if (!r->name[i])
			err = -ENOMEM;
		r->nnames++;
	}
	duckdb_destroy_result(&res);
	return err;
}

static unsigned int scan_generation;

/* Register fn as a volatile scalar function NAME(types...) → BOOLEAN on con.  Names are
 * numbered per scan so several files can be read by one process (tests do). */
static int register_sink(duckdb_connection con, struct scanner *sc, const char *name,
			 duckdb_scalar_function_t fn, const duckdb_type *types, int ntypes)
{
	duckdb_scalar_function f = duckdb_create_scalar_function();
	duckdb_logical_type t;
	duckdb_state st;

	duckdb_scalar_function_set_name(f, name);
	for (int i = 0; i < ntypes; i++) {
		t = duckdb_create_logical_type(types[i]);
		duckdb_scalar_function_add_parameter(f, t);
		duckdb_destroy_logical_type(&t);
	}
	t = duckdb_create_logical_type(DUCKDB_TYPE_BOOLEAN);
	duckdb_scalar_function_set_return_type(f, t);
	duckdb_destroy_logical_type(&t);
	duckdb_scalar_function_set_function(f, fn);
	duckdb_scalar_function_set_volatile(f);
	duckdb_scalar_function_set_extra_info(f, sc, NULL);
	/* NULL inputs must reach the sink (a NULL stack is a fact, not "skip the row"). */
	duckdb_scalar_function_set_special_handling(f);
	st = duckdb_register_scalar_function(con, f);
	duckdb_destroy_scalar_function(&f);
	if (st == DuckDBError) {
		log__error("%s: cannot register %s", sc->tf->path, name);
		return -EIO;
	}
	return 0;
}

/* Run `SELECT count(sink(...)) ...`: DuckDB reads the file on all its threads and feeds
 * the sink; nothing is materialised or copied through a result set. */
static int run_sink_query(struct scanner *sc, duckdb_connection con, const char *sql)
{
	duckdb_result res;
	int err = 0;

	if (duckdb_query(con, sql, &res) == DuckDBError) {
		const char *e = duckdb_result_error(&res);

		if (sc->cancel && *sc->cancel)
			err = -ECANCELED;
		else
			log__error("%s: cannot read (damaged file?): %s", sc->tf->path,
				   e ? e : "unknown error");
		err = err ?: -EIO;
	}
	duckdb_destroy_result(&res);
	return err;
}

int trace_rows__scan(duckdb_connection con, const struct trace_file *tf,
		     const volatile bool *cancel, struct trace_rows *rows)
{
	static const duckdb_type types[C__COUNT] = {
		DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_UTINYINT, DUCKDB_TYPE_UBIGINT, DUCKDB_TYPE_UINTEGER,
		DUCKDB_TYPE_UBIGINT, DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_UBIGINT, DUCKDB_TYPE_BIGINT,
		DUCKDB_TYPE_UBIGINT, DUCKDB_TYPE_UBIGINT, DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_UBIGINT,
		DUCKDB_TYPE_UINTEGER,
	};
	struct scanner sc = { .tf = tf, .r = rows, .cancel = cancel };
	char name[48], *sql = NULL;
	uint64_t total = 0;
	int err;

	memset(rows, 0, sizeof(*rows));
	snprintf(name, sizeof(name), "probex_rows_%u", __atomic_add_fetch(&scan_generation, 1, __ATOMIC_RELAXED));
	if ((err = row_count(con, tf, &total)) || (err = alloc_rows(&sc, total)) ||
	    (err = read_types(&sc, con)) || (err = read_names(&sc, con)) ||
	    (err = register_sink(con, &sc, name, rows_sink, types, C__COUNT)))
		goto cleanup;
	if (asprintf(&sql,
		     "SELECT count(%s(e.file_row_number, t.code, e.ts_ns::UBIGINT, e.pid::UINTEGER, "
		     "e.count::UBIGINT, e.ret::BIGINT, e.submit_ts_ns::UBIGINT, e.io_uring_res::BIGINT, "
		     "e.child_pid::UBIGINT, e.parent_pid::UBIGINT, e.exit_code::BIGINT, %s, %s)) "
		     "FROM read_parquet(%s, file_row_number = true) e "
		     "JOIN probex_types t ON t.name = e.event_type",
		     name, tf->has_latency_ns ? "e.latency_ns::UBIGINT" : "NULL::UBIGINT",
		     tf->has_stack_weight ? "e.stack_weight::UINTEGER" : "NULL::UINTEGER",
		     tf->literal) < 0) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = run_sink_query(&sc, con, sql);
	if (!err && sc.done != total)
		err = fail(&sc, "expected %llu rows, read fewer: the file is damaged", total);
	rows->n = total;
cleanup:
	free(sql);
	if (err)
		trace_rows__free(rows);
	return err;
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
	struct scanner *sc = duckdb_scalar_function_get_extra_info(info);
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
		if (!valid(lvalid, i)) {
			res[i] = r->stack[row] = STACK_NULL;
			continue;
		}
		if (m->used[slot] && m->key[slot] == h) {
			res[i] = r->stack[row] = m->val[slot];
			continue;
		}
		pthread_mutex_lock(&sc->lock);
		if (!hmap__get(&sc->stack_map, h, &id))
			err = intern_stack(sc, lists, i, row, h, &id);
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
		res[i] = r->stack[row] = id;
	}
	__atomic_add_fetch(&sc->done, n, __ATOMIC_RELAXED);
}

int trace_rows__scan_stacks(duckdb_connection con, const struct trace_file *tf,
			    const volatile bool *cancel, struct trace_rows *rows)
{
	static const duckdb_type types[2] = { DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_UBIGINT };
	struct scanner sc = { .tf = tf, .r = rows, .cancel = cancel,
			      .lock = PTHREAD_MUTEX_INITIALIZER };
	duckdb_scalar_function f = NULL;
	duckdb_logical_type t = NULL, lt = NULL;
	char name[48], *sql = NULL;
	uint32_t id;
	int err;

	sc.generation = __atomic_add_fetch(&scan_generation, 1, __ATOMIC_RELAXED);
	snprintf(name, sizeof(name), "probex_stacks_%u", sc.generation);
	rows->stack = bigmem__alloc((rows->n ? rows->n : 1) * sizeof(*rows->stack));
	if (!rows->stack)
		return -ENOMEM;
	/* Stack ids 0 (NULL) and 1 (no labels) are fixed. */
	if ((err = add_stack_slot(&sc, 0, 0, &id)) || (err = add_stack_slot(&sc, 0, 0, &id)))
		goto cleanup;
	/* register_sink knows flat types only; the third parameter is a LIST(VARCHAR). */
	f = duckdb_create_scalar_function();
	duckdb_scalar_function_set_name(f, name);
	for (int i = 0; i < 2; i++) {
		t = duckdb_create_logical_type(types[i]);
		duckdb_scalar_function_add_parameter(f, t);
		duckdb_destroy_logical_type(&t);
	}
	t = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
	lt = duckdb_create_list_type(t);
	duckdb_scalar_function_add_parameter(f, lt);
	duckdb_destroy_logical_type(&t);
	duckdb_destroy_logical_type(&lt);
	t = duckdb_create_logical_type(DUCKDB_TYPE_UINTEGER);
	duckdb_scalar_function_set_return_type(f, t);
	duckdb_destroy_logical_type(&t);
	duckdb_scalar_function_set_function(f, stacks_sink);
	duckdb_scalar_function_set_volatile(f);
	duckdb_scalar_function_set_special_handling(f);
	duckdb_scalar_function_set_extra_info(f, &sc, NULL);
	if (duckdb_register_scalar_function(con, f) == DuckDBError) {
		log__error("%s: cannot register %s", tf->path, name);
		err = -EIO;
		goto cleanup;
	}
	/* DuckDB hashes each list on its own threads; a list's labels are read only the
	 * first time its hash is seen.  A 64-bit collision between two different stacks of
	 * one trace (odds ~1e-11 for 10^4 stacks) would merge them. */
	if (asprintf(&sql, "SELECT count(%s(file_row_number, hash(stack_trace), stack_trace)) "
			   "FROM read_parquet(%s, file_row_number = true)", name, tf->literal) < 0) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = run_sink_query(&sc, con, sql);
	if (!err && sc.done != rows->n)
		err = fail(&sc, "expected %llu stacks, read fewer: the file is damaged", rows->n);
cleanup:
	if (f)
		duckdb_destroy_scalar_function(&f);
	free(sql);
	hmap__free(&sc.stack_map);
	hmap__free(&sc.content_map);
	pthread_mutex_destroy(&sc.lock);
	return err;
}

void trace_rows__free(struct trace_rows *r)
{
	free(r->ts);
	free(r->pid);
	free(r->type);
	free(r->stack);
	free(r->a);
	free(r->b);
	free(r->flags);
	free(r->latency);
	free(r->weight);
	for (unsigned int i = 0; i < r->ntypes; i++)
		free(r->type_names[i]);
	free(r->stack_first);
	free(r->stack_count);
	free(r->label_off);
	free(r->label_len);
	free(r->pool);
	for (uint32_t i = 0; r->name && i < r->nnames; i++)
		free(r->name[i]);
	free(r->name_pid);
	free(r->name);
	memset(r, 0, sizeof(*r));
}
