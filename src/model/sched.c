/* The scheduling rows of a trace, by thread (see model/sched.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/intern.h"
#include "common/log.h"
#include "model/sched.h"
#include "trace/duck.h"
#include "trace/schema.h"

/* Kernel task state bits (include/linux/sched.h). */
#define KS_UNINTERRUPTIBLE	0x2
#define KS_EXIT_DEAD		0x10
#define KS_EXIT_ZOMBIE		0x20
#define KS_DEAD			0x80
#define KS_NOLOAD		0x400	/* with UNINTERRUPTIBLE: TASK_IDLE, a sleep */

bool sched__blocks(int32_t state)
{
	return state != SCHED_IN && state != TRACE_STATE_RUNNABLE && state != TRACE_STATE_PREEMPTED;
}

bool sched__is_disk(int32_t state)
{
	return (state & KS_UNINTERRUPTIBLE) && !(state & KS_NOLOAD);
}

bool sched__is_dead(int32_t state)
{
	return sched__blocks(state) && (state & (KS_EXIT_DEAD | KS_EXIT_ZOMBIE | KS_DEAD));
}

enum { K_KIND, K_TS, K_PID, K_PREV, K_NEXT, K_STATE, K_LAT, K_WPID, K_WTGID, K_RUNNABLE,
       K_WSTACK, K_WNAME, K_ROW, K__COUNT };

/* A switch of one thread while loading. */
struct sched_ev {
	uint64_t ts;
	uint32_t tid;
	int32_t state;
	uint32_t row;		/* file row: ties in ts keep the file's order */
};

struct loadbuf {
	struct sched *s;
	struct sched_ev *ev;
	uint64_t cap_ev, cap_off;
	struct intern wst;
};

static int grow(void **p, uint64_t *cap, uint64_t n, size_t size)
{
	void *q;

	if (n < *cap)
		return 0;
	*cap = *cap ? *cap * 2 : 4096;
	if (!(q = realloc(*p, *cap * size)))
		return -ENOMEM;
	*p = q;
	return 0;
}

static int push_ev(struct loadbuf *lb, uint64_t ts, uint32_t tid, int32_t state, uint32_t row)
{
	struct sched *s = lb->s;

	if (!tid)	/* the idle task */
		return 0;
	if (grow((void **)&lb->ev, &lb->cap_ev, s->nev, sizeof(*lb->ev)))
		return -ENOMEM;
	lb->ev[s->nev++] = (struct sched_ev){ ts, tid, state, row };
	return 0;
}

static bool valid(duckdb_vector v, idx_t i)
{
	uint64_t *m = duckdb_vector_get_validity(v);

	return !m || duckdb_validity_row_is_valid(m, i);
}

static int take_off(struct loadbuf *lb, duckdb_data_chunk ch, idx_t i)
{
	struct sched *s = lb->s;
	duckdb_vector v[K__COUNT];
	struct sched_off *o;

	for (int k = 0; k < K__COUNT; k++)
		v[k] = duckdb_data_chunk_get_vector(ch, k);
	if (grow((void **)&s->off, &lb->cap_off, s->noff, sizeof(*s->off)))
		return -ENOMEM;
	o = &s->off[s->noff++];
	memset(o, 0, sizeof(*o));
	o->ts = ((uint64_t *)duckdb_vector_get_data(v[K_TS]))[i];
	o->tid = ((uint32_t *)duckdb_vector_get_data(v[K_PID]))[i];
	o->row = ((uint32_t *)duckdb_vector_get_data(v[K_ROW]))[i];
	o->lat = valid(v[K_LAT], i) ? ((uint64_t *)duckdb_vector_get_data(v[K_LAT]))[i] : 0;
	o->state = valid(v[K_STATE], i) ? (int32_t)((int64_t *)duckdb_vector_get_data(v[K_STATE]))[i] : 1;
	o->runnable = valid(v[K_RUNNABLE], i) ? ((int64_t *)duckdb_vector_get_data(v[K_RUNNABLE]))[i] : -1;
	if (valid(v[K_WPID], i))
		o->waker_pid = ((uint32_t *)duckdb_vector_get_data(v[K_WPID]))[i];
	if (valid(v[K_WTGID], i))
		o->waker_tgid = ((uint32_t *)duckdb_vector_get_data(v[K_WTGID]))[i];
	if (valid(v[K_WSTACK], i)) {
		uint32_t len;
		const char *str = trace_file__cell(duckdb_vector_get_data(v[K_WSTACK]), i, &len);
		int64_t id = intern__add(&lb->wst, str, len);

		if (id < 0)
			return (int)id;
		o->wstack = (uint32_t)id + 1;
	}
	if (o->waker_pid && valid(v[K_WNAME], i)) {
		uint32_t len;
		const char *str = trace_file__cell(duckdb_vector_get_data(v[K_WNAME]), i, &len);
		int64_t id = intern__add(&s->waker_names, str, len);

		if (id < 0)
			return (int)id;
		o->wname = (uint32_t)id + 1;
	}
	return 0;
}

static int take_switch(struct loadbuf *lb, duckdb_data_chunk ch, idx_t i)
{
	duckdb_vector vs = duckdb_data_chunk_get_vector(ch, K_STATE);
	uint64_t ts = ((uint64_t *)duckdb_vector_get_data(duckdb_data_chunk_get_vector(ch, K_TS)))[i];
	uint32_t row = ((uint32_t *)duckdb_vector_get_data(duckdb_data_chunk_get_vector(ch, K_ROW)))[i];
	duckdb_vector vp = duckdb_data_chunk_get_vector(ch, K_PREV), vn = duckdb_data_chunk_get_vector(ch, K_NEXT);
	int32_t state = valid(vs, i) ? (int32_t)((int64_t *)duckdb_vector_get_data(vs))[i] : 1;
	int err = 0;

	lb->s->has_switches = true;
	if (valid(vp, i))
		err = push_ev(lb, ts, ((uint32_t *)duckdb_vector_get_data(vp))[i], state == SCHED_IN ? 1 : state, row);
	if (!err && valid(vn, i))
		err = push_ev(lb, ts, ((uint32_t *)duckdb_vector_get_data(vn))[i], SCHED_IN, row);
	return err;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct sched_ev *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* One row switches a thread out, then (when it runs again) in. */
	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	return (x->state == SCHED_IN) - (y->state == SCHED_IN);
}

static int cmp_off(const void *a, const void *b)
{
	const struct sched_off *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->row > y->row) - (x->row < y->row);
}

/* tids (ascending, distinct) from both arrays, and each one's start in them; the
 * switches become columns. */
static int index_tids(struct sched *s, const struct sched_ev *ev)
{
	uint64_t i = 0, j = 0, cap = 0;

	while (i < s->nev || j < s->noff) {
		uint32_t t = j >= s->noff || (i < s->nev && ev[i].tid < s->off[j].tid) ? ev[i].tid : s->off[j].tid;

		if (grow((void **)&s->tids, &cap, s->ntids, sizeof(*s->tids)))
			return -ENOMEM;
		s->tids[s->ntids++] = t;
		while (i < s->nev && ev[i].tid == t)
			i++;
		while (j < s->noff && s->off[j].tid == t)
			j++;
	}
	s->ev_off = malloc((s->ntids + 1) * sizeof(*s->ev_off));
	s->off_off = malloc((s->ntids + 1) * sizeof(*s->off_off));
	s->ev_ts = malloc((s->nev + 1) * sizeof(*s->ev_ts));
	s->ev_state = malloc((s->nev + 1) * sizeof(*s->ev_state));
	if (!s->ev_off || !s->off_off || !s->ev_ts || !s->ev_state)
		return -ENOMEM;
	for (i = 0; i < s->nev; i++) {
		s->ev_ts[i] = ev[i].ts;
		s->ev_state[i] = ev[i].state;
	}
	i = j = 0;
	for (uint32_t k = 0; k < s->ntids; k++) {
		s->ev_off[k] = i;
		s->off_off[k] = j;
		while (i < s->nev && ev[i].tid == s->tids[k])
			i++;
		while (j < s->noff && s->off[j].tid == s->tids[k])
			j++;
	}
	s->ev_off[s->ntids] = s->nev;
	s->off_off[s->ntids] = s->noff;
	return 0;
}

/* Which optional columns the file has. */
static int has_columns(duckdb_connection con, const struct trace_file *tf, bool has[4])
{
	static const char *const names[4] = { "waker_pid", "runnable_ns", "waker_stack_trace",
					      "waker_name" };
	duckdb_result res;
	char *sql;
	int err = 0;

	if (asprintf(&sql, "DESCRIBE SELECT * FROM %s", tf->source) < 0)
		return -ENOMEM;
	if (duckdb_query(con, sql, &res) == DuckDBError) {
		log__error("%s: unreadable Parquet schema: %s", tf->path, duckdb_result_error(&res));
		err = -EIO;
	}
	free(sql);
	for (idx_t r = 0; !err && r < duckdb_row_count(&res); r++) {
		char *n = duckdb_value_varchar(&res, 0, r);

		for (int k = 0; n && k < 4; k++)
			has[k] |= !strcmp(n, names[k]);
		duckdb_free(n);
	}
	duckdb_destroy_result(&res);
	return err;
}

static int read_rows(duckdb_connection con, const struct trace_file *tf, struct loadbuf *lb)
{
	bool has[4] = { false };
	duckdb_result res;
	duckdb_data_chunk ch;
	char *sql;
	int err;

	if ((err = has_columns(con, tf, has)))
		return err;
	lb->s->has_waker = has[0];
	lb->s->has_runnable = has[1];
	if (asprintf(&sql,
		     "SELECT (event_type = 'off_cpu')::UTINYINT, ts_ns::UBIGINT, pid::UINTEGER, "
		     "prev_pid::UINTEGER, next_pid::UINTEGER, prev_state::BIGINT, %s, %s, %s, %s, %s, "
		     "%s, file_row_number::UINTEGER FROM read_parquet(%s, file_row_number = true) "
		     "WHERE event_type IN ('sched_switch', 'off_cpu')",
		     tf->has_latency_ns ? "latency_ns::UBIGINT" : "NULL::UBIGINT",
		     has[0] ? "waker_pid::UINTEGER" : "NULL::UINTEGER",
		     has[0] ? "waker_tgid::UINTEGER" : "NULL::UINTEGER",
		     has[1] ? "runnable_ns::BIGINT" : "NULL::BIGINT",
		     has[2] ? "CASE WHEN len(waker_stack_trace) > 0 THEN to_json(waker_stack_trace)::VARCHAR END"
			    : "NULL::VARCHAR",
		     has[3] ? "waker_name::VARCHAR" : "NULL::VARCHAR", tf->literal) < 0)
		return -ENOMEM;
	err = duck__stream(con, sql, tf->path, &res);
	free(sql);
	if (err)
		return err;
	while (!err && (ch = duckdb_fetch_chunk(res))) {
		idx_t n = duckdb_data_chunk_get_size(ch);
		uint8_t *kind = duckdb_vector_get_data(duckdb_data_chunk_get_vector(ch, K_KIND));

		for (idx_t i = 0; !err && i < n; i++)
			err = kind[i] ? take_off(lb, ch, i) : take_switch(lb, ch, i);
		duckdb_destroy_data_chunk(&ch);
	}
	duckdb_destroy_result(&res);
	return err;
}

/* The metadata value of key, or NULL (free with duckdb_free). */
static char *meta(duckdb_connection con, const struct trace_file *tf, const char *key)
{
	duckdb_result res;
	char *sql, *v = NULL;

	if (asprintf(&sql, "SELECT decode(value)::VARCHAR FROM parquet_kv_metadata(%s) "
			   "WHERE decode(key) = '%s'", tf->literal, key) < 0)
		return NULL;
	if (duckdb_query(con, sql, &res) != DuckDBError && duckdb_row_count(&res))
		v = duckdb_value_varchar(&res, 0, 0);
	duckdb_destroy_result(&res);
	free(sql);
	return v;
}

static void read_root(duckdb_connection con, const struct trace_file *tf, struct sched *s)
{
	char *v = meta(con, tf, META_ROOT_PID);

	s->root_pid = v ? (uint32_t)strtoul(v, NULL, 10) : 0;
	duckdb_free(v);
	v = meta(con, tf, META_STACK_MODE);
	s->no_stacks = v && !strcmp(v, stack_mode_names[TRACE_STACKS_NONE]);
	duckdb_free(v);
}

int sched__load(duckdb_connection con, const struct trace_file *tf, struct sched *s)
{
	struct loadbuf lb = { .s = s };
	int err;

	memset(s, 0, sizeof(*s));
	read_root(con, tf, s);
	err = read_rows(con, tf, &lb);
	if (!err) {
		if (s->nev)
			qsort(lb.ev, s->nev, sizeof(*lb.ev), cmp_ev);
		if (s->noff)
			qsort(s->off, s->noff, sizeof(*s->off), cmp_off);
		err = index_tids(s, lb.ev);
	}
	if (!err) {
		s->nwstacks = lb.wst.n + 1;
		s->wstack_json = calloc(s->nwstacks, sizeof(*s->wstack_json));
		s->wstack_len = calloc(s->nwstacks, sizeof(*s->wstack_len));
		if (!s->wstack_json || !s->wstack_len)
			err = -ENOMEM;
		for (uint32_t i = 0; !err && i < lb.wst.n; i++) {
			s->wstack_json[i + 1] = strdup(lb.wst.strs[i]);
			s->wstack_len[i + 1] = lb.wst.lens[i];
			if (!s->wstack_json[i + 1])
				err = -ENOMEM;
		}
	}
	intern__free(&lb.wst);
	free(lb.ev);
	if (err) {
		if (err == -ENOMEM)
			log__error("%s: out of memory reading scheduling rows", tf->path);
		sched__free(s);
	}
	return err;
}

void sched__free(struct sched *s)
{
	for (uint32_t i = 0; s->wstack_json && i < s->nwstacks; i++)
		free(s->wstack_json[i]);
	free(s->wstack_json);
	free(s->wstack_len);
	free(s->tids);
	free(s->ev_off);
	free(s->off_off);
	free(s->ev_ts);
	free(s->ev_state);
	free(s->off);
	intern__free(&s->waker_names);
	memset(s, 0, sizeof(*s));
}

const char *sched__waker_name(const struct sched *s, const struct sched_off *o)
{
	return o && o->wname ? s->waker_names.strs[o->wname - 1] : NULL;
}

int64_t sched__tid_index(const struct sched *s, uint32_t tid)
{
	uint32_t lo = 0, hi = s->ntids;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->tids[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->ntids && s->tids[lo] == tid ? (int64_t)lo : -1;
}

const struct sched_off *sched__off_at(const struct sched *s, int64_t ti, uint64_t ts)
{
	uint64_t lo, hi;

	if (ti < 0)
		return NULL;
	lo = s->off_off[ti];
	hi = s->off_off[ti + 1];
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (s->off[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->off_off[ti + 1] && s->off[lo].ts == ts ? &s->off[lo] : NULL;
}
