#include <errno.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "trace/duck.h"
#include "trace/scan.h"
#include "viewer/api.h"
#include "viewer/loader.h"

struct loader {
	struct viewer_state *st;
	pthread_t notify;
	duckdb_connection con;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

bool state__wait(struct viewer_state *st, unsigned int need)
{
	bool ok;

	pthread_mutex_lock(&st->lock);
	while ((st->ready & need) != need && !st->failed && !st->stopping)
		pthread_cond_wait(&st->cond, &st->lock);
	ok = (st->ready & need) == need;
	pthread_mutex_unlock(&st->lock);
	return ok;
}

void state__enter(struct viewer_state *st)
{
	pthread_mutex_lock(&st->lock);
	while (st->running >= STATE_MAX_RUNNING)
		pthread_cond_wait(&st->cond, &st->lock);
	st->running++;
	pthread_mutex_unlock(&st->lock);
}

void state__leave(struct viewer_state *st)
{
	pthread_mutex_lock(&st->lock);
	st->running--;
	pthread_cond_broadcast(&st->cond);
	pthread_mutex_unlock(&st->lock);
}

void state__set_ready(struct viewer_state *st, unsigned int parts)
{
	pthread_mutex_lock(&st->lock);
	st->ready |= parts;
	pthread_cond_broadcast(&st->cond);
	pthread_mutex_unlock(&st->lock);
}

void state__set_failed(struct viewer_state *st, const char *error)
{
	pthread_mutex_lock(&st->lock);
	st->failed = true;
	snprintf(st->load_error, sizeof(st->load_error), "%s", error);
	pthread_cond_broadcast(&st->cond);
	pthread_mutex_unlock(&st->lock);
}

/* A DuckDB table from the model through data chunks, rows in rn = (pid, ts, file row)
 * order, so zone maps prune pid-filtered queries to a row group or two.  ev holds every
 * row (rn, ts, pid, et); fl the rows with labelled stacks (plus sid, w). */
static int fill_table(duckdb_connection con, const char *name, const struct model *m, bool stacks,
		      const volatile bool *cancel)
{
	static const duckdb_type types[] = { DUCKDB_TYPE_UINTEGER, DUCKDB_TYPE_UBIGINT,
					     DUCKDB_TYPE_UINTEGER, DUCKDB_TYPE_UTINYINT,
					     DUCKDB_TYPE_UINTEGER, DUCKDB_TYPE_UINTEGER };
	int ncols = stacks ? 6 : 4, err = 0;
	idx_t cap = duckdb_vector_size(), k = 0;
	duckdb_logical_type lt[6];
	duckdb_appender app = NULL;
	duckdb_data_chunk chunk;
	uint32_t p = 0;
	void *d[6];
	char sql[200];

	snprintf(sql, sizeof(sql), "CREATE TABLE %s (rn UINTEGER, ts UBIGINT, pid UINTEGER, et UTINYINT%s)",
		 name, stacks ? ", sid UINTEGER, w UINTEGER" : "");
	if (duck__exec(con, sql))
		return -EIO;
	if (duckdb_appender_create(con, NULL, name, &app) == DuckDBError) {
		log__error("%s: %s", m->path, duckdb_appender_error(app));
		duckdb_appender_destroy(&app);
		return -EIO;
	}
	for (int c = 0; c < ncols; c++)
		lt[c] = duckdb_create_logical_type(types[c]);
	chunk = duckdb_create_data_chunk(lt, (idx_t)ncols);
	for (int c = 0; c < ncols; c++)
		d[c] = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, c));
	for (uint64_t r = 0; !err && r < m->n; r++) {
		while (p + 1 < m->npids && m->pid_off[p + 1] <= r)
			p++;
		if (stacks && m->stack[r] <= STACK_EMPTY)
			continue;	/* the flame graph skips rows without labels */
		((uint32_t *)d[0])[k] = (uint32_t)r;
		((uint64_t *)d[1])[k] = m->ts[r];
		((uint32_t *)d[2])[k] = m->pids[p];
		((uint8_t *)d[3])[k] = m->type[r];
		if (stacks) {
			((uint32_t *)d[4])[k] = m->stack[r];
			((uint32_t *)d[5])[k] = m->weight ? m->weight[r] : 1;
		}
		if (++k < cap && r + 1 < m->n)
			continue;
		duckdb_data_chunk_set_size(chunk, k);
		if (duckdb_append_data_chunk(app, chunk) == DuckDBError)
			err = -EIO;
		else if (*cancel)
			err = -ECANCELED;
		duckdb_data_chunk_reset(chunk);
		for (int c = 0; c < ncols; c++)
			d[c] = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, c));
		k = 0;
	}
	if (!err && k) {	/* fl: the last rows may all have been skipped above */
		duckdb_data_chunk_set_size(chunk, k);
		if (duckdb_append_data_chunk(app, chunk) == DuckDBError)
			err = -EIO;
	}
	if (!err && duckdb_appender_close(app) == DuckDBError)
		err = -EIO;
	if (err == -EIO)
		log__error("%s: cannot build table %s: %s", m->path, name, duckdb_appender_error(app));
	duckdb_destroy_data_chunk(&chunk);
	for (int c = 0; c < ncols; c++)
		duckdb_destroy_logical_type(&lt[c]);
	duckdb_appender_destroy(&app);
	return err;
}

/* pl: every column but the stack, by file row, for event_list's payload fields.  The
 * path is the command line's, quoted as a literal; requests only bind row numbers. */
static int create_payload_view(duckdb_connection con, const struct trace_file *tf)
{
	char *sql = NULL;
	int err;

	if (asprintf(&sql, "CREATE OR REPLACE VIEW pl AS SELECT * EXCLUDE (stack_trace) "
			   "FROM read_parquet(%s, file_row_number = true)", tf->literal) < 0)
		return -ENOMEM;
	err = duck__exec(con, sql);
	free(sql);
	return err;
}

static int load_rows(struct loader *ld, struct trace_rows *rows)
{
	struct viewer_state *st = ld->st;
	double t = now();
	int err;

	if ((err = trace_rows__scan(ld->con, &st->tf, &st->stopping, rows)))
		return err;
	log__debug("load: rows read in %.2f s", now() - t);
	if ((err = model__build(&st->m, &st->tf, rows)))
		return err;
	log__debug("load: rows sorted in %.2f s", now() - t);
	st->summary_json = api__summary_json(&st->m, &st->summary_len);
	if (!st->summary_json ||
	    api__lifetimes_json(&st->m, &st->lifetimes_json, &st->lifetimes_len, &st->lifetimes_error))
		return -ENOMEM;
	return 0;
}

/* Pairing needs only the sorted rows: it runs on its own thread while DuckDB builds the
 * query table and reads the stacks. */
static void *ops_main(void *arg)
{
	struct viewer_state *st = arg;
	double t = now();
	int err = ops__build(&st->ops, &st->m, &st->stopping);

	if (err) {
		if (err != -ECANCELED)
			log__error("%s: out of memory while pairing enter and exit rows", st->tf.path);
		return (void *)(intptr_t)err;
	}
	log__debug("load: operations paired in %.2f s", now() - t);
	state__set_ready(st, READY_OPS);
	return NULL;
}

static void *loader_main(void *arg)
{
	struct loader *ld = arg;
	struct viewer_state *st = ld->st;
	struct trace_rows rows;
	pthread_t ops;
	bool ops_started = false;
	void *ops_err = NULL;
	double t0 = now(), t;
	int err;

	memset(&rows, 0, sizeof(rows));
	err = create_payload_view(ld->con, &st->tf);
	if (!err)
		err = load_rows(ld, &rows);
	if (!err) {
		state__set_ready(st, READY_ROWS);
		log__info("loaded %llu events in %.1f s; indexing and reading stacks",
			  (unsigned long long)st->m.n, now() - t0);
		err = -pthread_create(&ops, NULL, ops_main, st);
		ops_started = !err;
	}
	if (!err) {
		t = now();
		err = st->stopping ? -ECANCELED : fill_table(ld->con, "ev", &st->m, false, &st->stopping);
		log__debug("load: ev table built in %.2f s", now() - t);
	}
	if (!err) {
		state__set_ready(st, READY_TABLE);
		t = now();
		err = st->stopping ? -ECANCELED : trace_rows__scan_stacks(ld->con, &st->tf, &st->stopping,
									 &rows);
		log__debug("load: stacks read in %.2f s", now() - t);
	}
	if (!err)
		err = model__attach_stacks(&st->m, &rows);
	if (!err) {
		t = now();
		err = st->stopping ? -ECANCELED : fill_table(ld->con, "fl", &st->m, true, &st->stopping);
		log__debug("load: fl table built in %.2f s", now() - t);
	}
	trace_rows__free(&rows);
	if (ops_started)
		pthread_join(ops, &ops_err);
	if (!err && ops_err)
		err = (int)(intptr_t)ops_err;
	if (!err) {
		state__set_ready(st, READY_STACKS);
		log__info("ready in %.1f s (%u distinct stacks)", now() - t0,
			  st->m.nstacks > 2 ? st->m.nstacks - 2 : 0);
	} else if (!st->stopping) {
		/* The failing step has logged what is wrong; stop serving. */
		if (err == -ENOMEM)
			log__error("%s: out of memory while loading", st->tf.path);
		state__set_failed(st, "the trace could not be loaded");
		pthread_kill(ld->notify, SIGUSR1);
	}
	duckdb_disconnect(&ld->con);
	free(ld);
	return NULL;
}

int loader__start(struct viewer_state *st, pthread_t notify, pthread_t *thread)
{
	struct loader *ld = calloc(1, sizeof(*ld));
	int err;

	if (!ld)
		return -ENOMEM;
	ld->st = st;
	ld->notify = notify;
	if (duckdb_connect(st->db, &ld->con) == DuckDBError) {
		free(ld);
		return -EIO;
	}
	err = -pthread_create(thread, NULL, loader_main, ld);
	if (err) {
		duckdb_disconnect(&ld->con);
		free(ld);
	}
	return err;
}

void loader__stop(struct viewer_state *st, pthread_t thread)
{
	pthread_mutex_lock(&st->lock);
	st->stopping = true;
	pthread_cond_broadcast(&st->cond);
	pthread_mutex_unlock(&st->lock);
	/* The scans poll `stopping` between batches; DuckDB's own work is bounded by one. */
	pthread_join(thread, NULL);
}
