#include <errno.h>
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

bool state__wait(struct viewer_state *st, enum load_stage need)
{
	bool ok;

	pthread_mutex_lock(&st->lock);
	while (st->stage < need && st->stage != STAGE_FAILED && !st->stopping)
		pthread_cond_wait(&st->cond, &st->lock);
	ok = st->stage >= need && st->stage != STAGE_FAILED;
	pthread_mutex_unlock(&st->lock);
	return ok;
}

void state__set_stage(struct viewer_state *st, enum load_stage stage, const char *error)
{
	pthread_mutex_lock(&st->lock);
	st->stage = stage;
	if (error)
		snprintf(st->load_error, sizeof(st->load_error), "%s", error);
	pthread_cond_broadcast(&st->cond);
	pthread_mutex_unlock(&st->lock);
}

/* Fill a DuckDB table from the model through data chunks, rows in rn order (so zone maps
 * on pid prune pid-filtered queries). */
static int fill_table(duckdb_connection con, const char *name, const duckdb_type *types, int ncols,
		      const struct model *m, bool stacks)
{
	duckdb_logical_type lt[8];
	duckdb_appender app = NULL;
	duckdb_data_chunk chunk = NULL;
	idx_t cap = duckdb_vector_size(), k = 0;
	uint32_t p = 0;
	int err = 0;

	if (duckdb_appender_create(con, NULL, name, &app) == DuckDBError) {
		log__error("%s: %s", m->path, duckdb_appender_error(app));
		duckdb_appender_destroy(&app);
		return -EIO;
	}
	for (int c = 0; c < ncols; c++)
		lt[c] = duckdb_create_logical_type(types[c]);
	chunk = duckdb_create_data_chunk(lt, (idx_t)ncols);
	for (uint64_t r = 0; !err && r < m->n; r++) {
		void *d[6];

		while (p + 1 < m->npids && m->pid_off[p + 1] <= r)
			p++;
		if (stacks && m->stack[r] <= STACK_EMPTY)
			continue;	/* the flame graph skips rows without labels */
		for (int c = 0; c < ncols; c++)
			d[c] = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, c));
		((uint32_t *)d[0])[k] = (uint32_t)r;
		((uint64_t *)d[1])[k] = m->ts[r];
		((uint32_t *)d[2])[k] = m->pids[p];
		((uint8_t *)d[3])[k] = m->type[r];
		if (stacks) {
			((uint32_t *)d[4])[k] = m->stack[r];
			((uint32_t *)d[5])[k] = m->weight ? m->weight[r] : 1;
		}
		if (++k == cap) {
			duckdb_data_chunk_set_size(chunk, k);
			if (duckdb_append_data_chunk(app, chunk) == DuckDBError)
				err = -EIO;
			duckdb_data_chunk_reset(chunk);
			k = 0;
		}
	}
	if (!err && k) {
		duckdb_data_chunk_set_size(chunk, k);
		if (duckdb_append_data_chunk(app, chunk) == DuckDBError)
			err = -EIO;
	}
	if (!err && duckdb_appender_close(app) == DuckDBError)
		err = -EIO;
	if (err)
		log__error("%s: cannot build table %s: %s", m->path, name, duckdb_appender_error(app));
	duckdb_destroy_data_chunk(&chunk);
	for (int c = 0; c < ncols; c++)
		duckdb_destroy_logical_type(&lt[c]);
	duckdb_appender_destroy(&app);
	return err;
}

static int load_rows(struct loader *ld, struct trace_rows *rows)
{
	static const duckdb_type ev[] = { DUCKDB_TYPE_UINTEGER, DUCKDB_TYPE_UBIGINT,
					  DUCKDB_TYPE_UINTEGER, DUCKDB_TYPE_UTINYINT };
	struct viewer_state *st = ld->st;
	int err;

	if ((err = trace_rows__scan(ld->con, &st->tf, &st->stopping, rows)) ||
	    (err = model__build(&st->m, &st->tf, rows)) || (err = ops__build(&st->ops, &st->m)))
		return err;
	st->summary_json = api__summary_json(&st->m, &st->summary_len);
	if (!st->summary_json ||
	    api__lifetimes_json(&st->m, &st->lifetimes_json, &st->lifetimes_len, &st->lifetimes_error))
		return -ENOMEM;
	if (duck__exec(ld->con, "CREATE TABLE ev (rn UINTEGER, ts UBIGINT, pid UINTEGER, et UTINYINT)"))
		return -EIO;
	return fill_table(ld->con, "ev", ev, 4, &st->m, false);
}

static int load_stacks(struct loader *ld, struct trace_rows *rows)
{
	static const duckdb_type fl[] = { DUCKDB_TYPE_UINTEGER, DUCKDB_TYPE_UBIGINT,
					  DUCKDB_TYPE_UINTEGER, DUCKDB_TYPE_UTINYINT,
					  DUCKDB_TYPE_UINTEGER, DUCKDB_TYPE_UINTEGER };
	struct viewer_state *st = ld->st;
	int err;

	if ((err = trace_rows__scan_stacks(ld->con, &st->tf, &st->stopping, rows)) ||
	    (err = model__attach_stacks(&st->m, rows)))
		return err;
	if (duck__exec(ld->con, "CREATE TABLE fl (rn UINTEGER, ts UBIGINT, pid UINTEGER, "
				"et UTINYINT, sid UINTEGER, w UINTEGER)"))
		return -EIO;
	return fill_table(ld->con, "fl", fl, 6, &st->m, true);
}

static void *loader_main(void *arg)
{
	struct loader *ld = arg;
	struct viewer_state *st = ld->st;
	struct trace_rows rows;
	double t0 = now(), t1;
	int err;

	memset(&rows, 0, sizeof(rows));
	err = load_rows(ld, &rows);
	if (!err) {
		t1 = now();
		state__set_stage(st, STAGE_ROWS, NULL);
		log__info("loaded %llu events in %.1f s; reading stacks",
			  (unsigned long long)st->m.n, t1 - t0);
		err = load_stacks(ld, &rows);
	}
	trace_rows__free(&rows);
	if (!err) {
		state__set_stage(st, STAGE_STACKS, NULL);
		log__info("stacks ready (%u distinct) in %.1f s", st->m.nstacks > 2 ? st->m.nstacks - 2 : 0,
			  now() - t0);
	} else if (!st->stopping) {
		/* The scan has logged what is wrong with the file; stop serving. */
		if (err == -ENOMEM)
			log__error("%s: out of memory while loading", st->tf.path);
		state__set_stage(st, STAGE_FAILED, "the trace could not be loaded");
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
