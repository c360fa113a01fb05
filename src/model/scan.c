/* Pass 1 over a trace: every row but its stack, into compact file-order columns. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bigmem.h"
#include "common/log.h"
#include "common/sort.h"
#include "model/scan.h"
#include "model/scan_priv.h"
#include "model/sink.h"
#include "trace/duck.h"
#include "trace/schema.h"

/* Which source columns feed a and b for a given event type (see scan.h). */
void scan__type_slots(struct scanner *sc, unsigned int code, int ev, const char *name)
{
	size_t len = strlen(name);

	sc->a_col[code] = sc->b_col[code] = -1;
	/* Syscalls past the 0.1 format's: their exits' ret, for by_operation. */
	if (ev < 0 && len > 13 && !strncmp(name, "syscall_", 8) && !strcmp(name + len - 5, "_exit")) {
		sc->a_col[code] = C_RET;
		return;
	}
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

static int alloc_rows(struct scanner *sc, uint64_t n)
{
	struct trace_rows *r = sc->r;
	uint64_t c = n ? n : 1;

	sc->cap = c;
	r->ts = bigmem__alloc(c * sizeof(*r->ts));
	r->pid = bigmem__alloc(c * sizeof(*r->pid));
	r->type_narrow = r->ntypes <= 256;
	r->type = bigmem__alloc(c * (r->type_narrow ? 1 : 2));
	if (sc->values)
		r->a32 = bigmem__alloc(c * sizeof(*r->a32));
	r->flags = bigmem__alloc(c);
	if (sc->tf->has_latency_ns)
		r->lat32 = bigmem__alloc(c * sizeof(*r->lat32));
	if (sc->tf->has_stack_weight)
		r->w16 = bigmem__alloc(c * sizeof(*r->w16));
	if (!r->ts || !r->pid || !r->type || (sc->values && !r->a32) || !r->flags ||
	    (sc->tf->has_latency_ns && !r->lat32) || (sc->tf->has_stack_weight && !r->w16))
		return -ENOMEM;
	return 0;
}

static int side__push(struct trace_side *s, uint32_t row, uint64_t val)
{
	if (s->n == s->cap) {
		uint64_t cap = s->cap ? s->cap * 2 : 1024;
		uint32_t *r = bigmem__grow(s->row, s->n * sizeof(*r), cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		s->row = r;
		uint64_t *v = bigmem__grow(s->val, s->n * sizeof(*v), cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->val = v;
		s->cap = cap;
	}
	s->row[s->n] = row;
	s->val[s->n++] = val;
	return 0;
}

void scan__side_flush(struct scanner *sc, struct side_batch *b)
{
	pthread_mutex_lock(&sc->side_lock);
	for (unsigned int i = 0; i < b->n && !sc->side_failed; i++)
		sc->side_failed = side__push(&sc->r->side[b->e[i].kind], b->e[i].row, b->e[i].val) != 0;
	pthread_mutex_unlock(&sc->side_lock);
	b->n = 0;
}

void scan__side_add(struct scanner *sc, struct side_batch *b, int kind, uint64_t row, uint64_t val)
{
	if (b->n == SIDE_BATCH)
		scan__side_flush(sc, b);
	b->e[b->n].val = val;
	b->e[b->n].row = (uint32_t)row;
	b->e[b->n++].kind = (uint8_t)kind;
}

uint8_t scan__ab(struct scanner *sc, struct side_batch *side, void *const *d, uint64_t *const *v,
		 uint64_t i, int ca, int cb, int32_t *a32, uint64_t row)
{
	uint8_t f = 0;

	if (ca >= 0 && a32 && sink__valid(v[ca], i)) {
		int64_t a = ((int64_t *)d[ca])[i];
		bool big = a <= A32_BIG || a > INT32_MAX;

		a32[row] = big ? A32_BIG : (int32_t)a;
		if (big)
			scan__side_add(sc, side, SIDE_A, row, (uint64_t)a);
		f |= ROW_A;
	}
	if (cb >= 0 && sink__valid(v[cb], i)) {
		scan__side_add(sc, side, SIDE_B, row, ((uint64_t *)d[cb])[i]);
		f |= ROW_B;
	}
	return f;
}

/* Sinks append in the order DuckDB's threads finish their batches: put rows in order. */
int scan__side_sort(struct trace_side *s)
{
	uint32_t *perm, *row;
	uint64_t *key, *val;
	bool sorted = true;

	for (uint64_t i = 1; i < s->n && sorted; i++)
		sorted = s->row[i - 1] <= s->row[i];
	if (sorted)
		return 0;
	perm = bigmem__alloc(s->n * sizeof(*perm));
	key = bigmem__alloc(s->n * sizeof(*key));
	row = bigmem__alloc(s->n * sizeof(*row));
	val = bigmem__alloc(s->n * sizeof(*val));
	if (!perm || !key || !row || !val)
		goto nomem;
	for (uint64_t i = 0; i < s->n; i++) {
		key[i] = s->row[i];
		perm[i] = (uint32_t)i;
	}
	if (sort__radix_perm(key, perm, s->n, 32))
		goto nomem;
	for (uint64_t i = 0; i < s->n; i++) {
		row[i] = s->row[perm[i]];
		val[i] = s->val[perm[i]];
	}
	free(s->row);
	free(s->val);
	s->row = row;
	s->val = val;
	free(perm);
	free(key);
	return 0;
nomem:
	free(perm);
	free(key);
	free(row);
	free(val);
	return -ENOMEM;
}


/* Pass 1 sink: DuckDB calls it on its worker threads with batches of rows; each row
 * carries its file row number and lands in its own slot, so no lock is needed. */
static void rows_sink(duckdb_function_info info, duckdb_data_chunk chunk, duckdb_vector out)
{
	struct scanner *sc = duckdb_scalar_function_get_extra_info(info);
	struct trace_rows *r = sc->r;
	struct side_batch side = { 0 };
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
		uint16_t code = ((uint16_t *)d[C_TYPE])[i];
		uint8_t f = 0;
		int ca = sc->a_col[code], cb = sc->b_col[code];

		res[i] = true;
		if (row >= sc->cap) {
			duckdb_scalar_function_set_error(info, "row count changed while reading");
			return;
		}
		if (!sink__valid(v[C_TS], i) || !sink__valid(v[C_PID], i)) {
			snprintf(msg, sizeof(msg), "row %llu has a NULL ts_ns or pid", (unsigned long long)row);
			duckdb_scalar_function_set_error(info, msg);
			return;
		}
		if (r->type_narrow)
			((uint8_t *)r->type)[row] = (uint8_t)code;
		else
			((uint16_t *)r->type)[row] = code;
		r->ts[row] = ((uint64_t *)d[C_TS])[i];
		r->pid[row] = ((uint32_t *)d[C_PID])[i];
		if (r->a32)
			r->a32[row] = 0;
		f |= scan__ab(sc, &side, d, v, i, ca, cb, r->a32, row);
		if (r->lat32) {
			uint64_t lat = sink__valid(v[C_LAT], i) ? ((uint64_t *)d[C_LAT])[i] : 0;

			r->lat32[row] = lat >= UINT32_MAX ? UINT32_MAX : (uint32_t)lat;
			if (lat >= UINT32_MAX)
				scan__side_add(sc, &side, SIDE_LAT, row, lat);
			if (sink__valid(v[C_LAT], i))
				f |= ROW_LAT;
		}
		if (r->w16) {
			uint32_t w = sink__valid(v[C_WEIGHT], i) ? ((uint32_t *)d[C_WEIGHT])[i] : 1;

			r->w16[row] = w >= UINT16_MAX ? UINT16_MAX : (uint16_t)w;
			if (w >= UINT16_MAX)
				scan__side_add(sc, &side, SIDE_WEIGHT, row, w);
		}
		r->flags[row] = f;
	}
	scan__side_flush(sc, &side);
	__atomic_add_fetch(&sc->done, n, __ATOMIC_RELAXED);
}

/* Run SQL (printf-style) that returns a small materialised result; on failure one error
 * line naming the file and what was being read (what may be ""), and *res is destroyed. */
static int __attribute__((format(printf, 5, 6)))
small_query(duckdb_connection con, const struct trace_file *tf, const char *what,
	    duckdb_result *res, const char *fmt, ...)
{
	char *sql;
	va_list ap;
	int n, err = 0;

	va_start(ap, fmt);
	n = vasprintf(&sql, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	if (duckdb_query(con, sql, res) == DuckDBError) {
		log__error("%s: cannot read%s: %s", tf->path, what, duckdb_result_error(res));
		duckdb_destroy_result(res);
		err = -EIO;
	}
	free(sql);
	return err;
}

static int row_count(duckdb_connection con, const struct trace_file *tf, uint64_t *n)
{
	duckdb_result res;
	int err = small_query(con, tf, "", &res, "SELECT count(*)::UBIGINT FROM %s", tf->source);

	if (err)
		return err;
	*n = duckdb_value_uint64(&res, 0, 0);
	duckdb_destroy_result(&res);
	return 0;
}

/* The distinct event types become codes 0..n-1 in name order: a temporary table, and an
 * ENUM type enum_type of the same names in the same order, which the row query casts
 * event_type to (DuckDB turns strings into codes on its own threads; a cast looks the
 * string up in the ENUM's dictionary, ten times faster than joining the table). */
static int read_types(struct scanner *sc, duckdb_connection con, const char *enum_type)
{
	const struct trace_file *tf = sc->tf;
	struct trace_rows *r = sc->r;
	duckdb_result res;
	idx_t n;
	int err;

	/* One message for the failure (duck__exec would log DuckDB's text on its own line). */
	if ((err = small_query(con, tf, " event types", &res,
			       "CREATE OR REPLACE TEMP TABLE probex_types AS "
			       "SELECT name, (row_number() OVER (ORDER BY name) - 1)::USMALLINT AS code "
			       "FROM (SELECT DISTINCT event_type AS name FROM %s)", tf->source)))
		return err;
	duckdb_destroy_result(&res);
	if ((err = small_query(con, tf, "", &res, "SELECT name FROM probex_types ORDER BY code")))
		return err;
	n = duckdb_row_count(&res);
	if (n > TRACE_MAX_TYPES) {
		log__error("%s: more than %d distinct event types", tf->path, TRACE_MAX_TYPES);
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
		scan__type_slots(sc, (unsigned int)i, r->type_event[i], r->type_names[i]);
	}
	duckdb_destroy_result(&res);
	if (!err && n && !(err = small_query(con, tf, " event types", &res,
					     "CREATE OR REPLACE TYPE %s AS ENUM "
					     "(SELECT name FROM probex_types ORDER BY code)", enum_type)))
		duckdb_destroy_result(&res);
	return err;
}

/* Per pid: the first non-empty process_name in (ts, file row) order (the 0.1 viewer's rule),
 * the last one (the name after an exec) and the tgid of its first named row.  In a file
 * sorted by ts_ns (probex writes them so) that order is the file's: a plain row number is
 * a key DuckDB compares three times faster than the (ts, row) pair. */
static int read_names(const struct trace_file *tf, struct trace_rows *r, duckdb_connection con,
		      bool ts_sorted)
{
	const char *key = ts_sorted ? "file_row_number" : "(ts_ns, file_row_number)";
	duckdb_result res;
	idx_t n;
	int err;

	if ((err = small_query(con, tf, "", &res,
			       "SELECT pid::UINTEGER AS p, arg_min(process_name, %s), "
			       "arg_max(process_name, %s), arg_min(tgid, %s)::UINTEGER "
			       "FROM read_parquet(%s, file_row_number = true) "
			       "WHERE process_name IS NOT NULL AND process_name <> '' GROUP BY p ORDER BY p",
			       key, key, key, tf->literal)))
		return err;
	n = duckdb_row_count(&res);
	r->name_pid = malloc((n + 1) * sizeof(*r->name_pid));
	r->name = calloc(n + 1, sizeof(*r->name));
	r->last_name = calloc(n + 1, sizeof(*r->last_name));
	r->name_tgid = calloc(n + 1, sizeof(*r->name_tgid));
	if (!r->name_pid || !r->name || !r->last_name || !r->name_tgid)
		err = -ENOMEM;
	for (idx_t i = 0; !err && i < n; i++) {
		r->name_pid[i] = duckdb_value_uint32(&res, 0, i);
		r->name[i] = duckdb_value_varchar(&res, 1, i);
		r->last_name[i] = duckdb_value_varchar(&res, 2, i);
		r->name_tgid[i] = duckdb_value_uint32(&res, 3, i);
		r->nnames++;
		if (!r->name[i] || !r->last_name[i])
			err = -ENOMEM;
	}
	duckdb_destroy_result(&res);
	return err;
}

int trace_rows__scan(duckdb_connection con, const struct trace_file *tf,
		     const volatile bool *cancel, struct trace_rows *rows, bool values)
{
	static const duckdb_type types[C__COUNT] = {
		DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_USMALLINT, DUCKDB_TYPE_UBIGINT, DUCKDB_TYPE_UINTEGER,
		DUCKDB_TYPE_UBIGINT, DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_UBIGINT, DUCKDB_TYPE_BIGINT,
		DUCKDB_TYPE_UBIGINT, DUCKDB_TYPE_UBIGINT, DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_UBIGINT,
		DUCKDB_TYPE_UINTEGER,
	};
	struct scanner sc = { .tf = tf, .r = rows, .cancel = cancel, .values = values,
			      .side_lock = PTHREAD_MUTEX_INITIALIZER };
	struct sink_spec spec = { "probex_rows", rows_sink, &sc, types, C__COUNT, false, DUCKDB_TYPE_BOOLEAN };
	char name[48], enum_type[48], *sql = NULL;
	uint64_t total = 0;
	int err;

	memset(rows, 0, sizeof(*rows));
	snprintf(enum_type, sizeof(enum_type), "probex_type_%u", sink__generation());
	snprintf(rows->enum_type, sizeof(rows->enum_type), "%s", enum_type);
	/* Types first: their number sets the width of the type column. */
	if ((err = row_count(con, tf, &total)) || (err = read_types(&sc, con, enum_type)) ||
	    (err = alloc_rows(&sc, total)))
		goto cleanup;
	log__debug("scan: %llu rows, %u types", (unsigned long long)total, rows->ntypes);
	if (sink__register(con, &spec, name, sizeof(name))) {
		log__error("%s: cannot register %s", tf->path, name);
		err = -EIO;
		goto cleanup;
	}
	if (asprintf(&sql,
		     "SELECT count(%s(e.file_row_number, enum_code(e.event_type::%s)::USMALLINT, "
		     "e.ts_ns::UBIGINT, e.pid::UINTEGER, %s, %s, %s)) "
		     "FROM read_parquet(%s, file_row_number = true) e",
		     name, enum_type, values ? VALUE_COLS : VALUE_NULLS, tf->has_latency_ns ? "e.latency_ns::UBIGINT" : "NULL::UBIGINT",
		     tf->has_stack_weight ? "e.stack_weight::UINTEGER" : "NULL::UINTEGER",
		     tf->literal) < 0) {
		err = -ENOMEM;
		goto cleanup;
	}
	/* An empty file has no types, so no ENUM to cast to: nothing to read either. */
	err = total ? sink__run(con, sql, tf->path, cancel) : 0;
	if (!err && sc.done != total) {
		log__error("%s: expected %llu rows, read fewer: the file is damaged", tf->path,
			   (unsigned long long)total);
		err = -EINVAL;
	}
	if (!err && sc.side_failed)
		err = -ENOMEM;
	for (int k = 0; !err && k < SIDE__COUNT; k++)
		err = scan__side_sort(&rows->side[k]);
	rows->n = total;
	rows->ts_sorted = true;
	for (uint64_t i = 1; !err && i < total && rows->ts_sorted; i++)
		rows->ts_sorted = rows->ts[i] >= rows->ts[i - 1];
cleanup:
	free(sql);
	if (err)
		trace_rows__free(rows);
	return err;
}

int trace_rows__scan_names(duckdb_connection con, const struct trace_file *tf,
			   struct trace_rows *rows)
{
	int err = read_names(tf, rows, con, rows->ts_sorted);

	if (!err)
		log__debug("scan: names of %u pids", rows->nnames);
	return err;
}

void trace_rows__free(struct trace_rows *r)
{
	free(r->ts);
	free(r->pid);
	free(r->type);
	free(r->stack);
	hmap__free(&r->stack_wide);
	free(r->a32);
	free(r->lat32);
	free(r->w16);
	for (int k = 0; k < SIDE__COUNT; k++) {
		free(r->side[k].row);
		free(r->side[k].val);
	}
	free(r->flags);
	for (unsigned int i = 0; i < r->ntypes; i++)
		free(r->type_names[i]);
	free(r->stack_first);
	free(r->stack_count);
	free(r->label_off);
	free(r->label_len);
	free(r->pool);
	for (uint32_t i = 0; r->name && i < r->nnames; i++) {
		free(r->name[i]);
		free(r->last_name[i]);
	}
	free(r->name_pid);
	free(r->name);
	free(r->last_name);
	free(r->name_tgid);
	memset(r, 0, sizeof(*r));
}
