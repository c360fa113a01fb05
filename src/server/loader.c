#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/rss.h"
#include "common/test_hooks.h"
#include "model/load.h"
#include "server/api.h"
#include "model/cmdlines.h"
#include "server/loader.h"
#include "trace/duck.h"

/* Traces loading now (the viewed one and its --base). */
static unsigned int loading;

struct loader {
	struct viewer_state *st;
	pthread_t notify;
	duckdb_connection con;
};

bool state__wait(struct viewer_state *st, unsigned int need)
{
	/* Parts loaded after the stacks (names: a --base trace's only). */
	unsigned int deferred = READY_OPS | (st->first ? READY_NAMES : 0);
	bool ok;

	pthread_mutex_lock(&st->lock);
	if ((need & deferred & ~st->ready) && !st->wanted) {
		st->wanted = true;
		/* Back to normal priority, where allowed (CAP_SYS_NICE or RLIMIT_NICE). */
		if (st->low_tid)
			setpriority(PRIO_PROCESS, (id_t)st->low_tid, 0);
		pthread_cond_broadcast(&st->cond);
	}
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

/* pl: every column but the stack, by file row, for event_list's payload fields.  The
 * path is the command line's, quoted as a literal; requests only bind row numbers. */
static int create_payload_view(duckdb_connection con, const struct trace_file *tf)
{
	char *sql = NULL;
	int err;

	/* argv, a list, as the text of its JSON array (payload.c writes it as is). */
	if (asprintf(&sql, "CREATE OR REPLACE VIEW pl AS SELECT * EXCLUDE (stack_trace) %s"
			   "FROM read_parquet(%s, file_row_number = true)",
		     tf->has_argv ? "REPLACE (to_json(argv)::VARCHAR AS argv) " : "", tf->literal) < 0)
		return -ENOMEM;
	err = duck__exec(con, sql);
	free(sql);
	return err;
}

/* The summary is answered while the rows are sorted. */
/* The processes of the trace, for the summary (the model has threads only). */
static int read_tgids(struct loader *ld, uint32_t **tgids, uint32_t *n)
{
	duckdb_result res;
	char *sql;
	idx_t rows;

	*tgids = NULL;
	*n = 0;
	if (asprintf(&sql, "SELECT DISTINCT tgid::UINTEGER FROM read_parquet(%s) WHERE tgid IS NOT NULL "
			   "ORDER BY 1", ld->st->tf.literal) < 0)
		return -ENOMEM;
	if (duckdb_query(ld->con, sql, &res) == DuckDBError) {
		free(sql);
		duckdb_destroy_result(&res);
		return 0;	/* the summary goes out with what the model has */
	}
	free(sql);
	rows = duckdb_row_count(&res);
	if (!(*tgids = malloc((rows + 1) * sizeof(**tgids)))) {
		duckdb_destroy_result(&res);
		return -ENOMEM;
	}
	for (idx_t i = 0; i < rows; i++)
		(*tgids)[(*n)++] = duckdb_value_uint32(&res, 0, i);
	duckdb_destroy_result(&res);
	return 0;
}

static int summary_ready(void *ctx, const struct model *m)
{
	struct loader *ld = ctx;
	struct viewer_state *st = ld->st;
	uint32_t *tgids, ntgids;

	if (read_tgids(ld, &tgids, &ntgids))
		return -ENOMEM;
	st->summary_json = api__summary_json(m, &st->exact, tgids, ntgids, &st->summary_len);
	free(tgids);
	if (!st->summary_json)
		return -ENOMEM;
	state__set_ready(st, READY_SUMMARY);
	return 0;
}

static int load_lifetimes(struct loader *ld)
{
	struct viewer_state *st = ld->st;
	struct cmdlines cl;
	int err = cmdlines__read(ld->con, &st->tf, &cl);

	if (!err)
		err = api__lifetimes_json(&st->m, &cl, &st->lifetimes_json, &st->lifetimes_len,
					  &st->lifetimes_error);
	cmdlines__free(&cl);
	return err ? -ENOMEM : 0;
}

/* A --base trace reads its names after its stacks (load_names). */
static int load_rows(struct loader *ld, struct trace_rows *rows)
{
	struct viewer_state *st = ld->st;
	int err = model__load_rows(ld->con, &st->tf, &st->stopping, &st->m, rows, summary_ready, ld,
				   !st->first);

	if (!err && !st->first)
		err = load_lifetimes(ld);
	return err;
}

/* A --base trace's values and names, after its stacks (lifetimes need both). */
static int load_details(struct loader *ld, const struct trace_rows *rows)
{
	struct viewer_state *st = ld->st;
	double t = rss__now();
	int err = model__load_values(ld->con, &st->tf, rows->enum_type, &st->m);

	log__debug("load: values read in %.2f s", rss__now() - t);
	if (!err)
		err = model__load_names(ld->con, &st->tf, rows->ts_sorted, &st->m);
	return err ? err : load_lifetimes(ld);
}

/* What is left once both traces of the compare view have their stacks runs at the lowest
 * priority, DuckDB on this thread alone, so that it does not slow the first requests;
 * not when a request already waits for it. */
static void defer_priority(struct loader *ld, bool low)
{
	struct viewer_state *st = ld->st;
	bool lowered = false;

	pthread_mutex_lock(&st->lock);
	if (low && !st->wanted && !setpriority(PRIO_PROCESS, (id_t)gettid(), 19)) {
		st->low_tid = gettid();
		lowered = true;
	} else if (!low) {
		st->low_tid = 0;
	}
	pthread_mutex_unlock(&st->lock);
	if (lowered)
		duck__exec(ld->con, "SET threads = 1");
	else if (!low)
		duck__exec(ld->con, "RESET threads");
}

/* Pairing needs only the sorted rows: it runs on its own thread while DuckDB builds the
 * query table and reads the stacks. */
static void *ops_main(void *arg)
{
	struct viewer_state *st = arg;
	double t = rss__now();
	int err = ops__build(&st->ops, &st->m, &st->stopping);

	if (err) {
		if (err != -ECANCELED)
			log__error("%s: out of memory while pairing enter and exit rows", st->tf.path);
		return (void *)(intptr_t)err;
	}
	uint64_t recs = 0;

	/* Pairing's temporary arrays went back to malloc's arenas, which keep them: hand
	 * them to the kernel, as they are not needed again. */
	malloc_trim(0);
	for (int i = 0; i < st->ops.nops; i++)
		recs += st->ops.op[i].n;
	log__debug("load: %llu operations paired in %.2f s (%s)", (unsigned long long)recs,
		   rss__now() - t, rss__mib());
	state__set_ready(st, READY_OPS);
	return NULL;
}

/* Wait until `other` has `parts` (or failed, or stops), this trace stops, or (with
 * `wanted`) a request waits for what comes next.  One lock at a time: the two traces'
 * loaders may wait on each other's parts at once. */
static void wait_other(struct viewer_state *st, struct viewer_state *other, unsigned int parts,
		       const bool *wanted)
{
	for (;;) {
		struct timespec ts;
		bool done;

		pthread_mutex_lock(&other->lock);
		done = (other->ready & parts) == parts || other->failed || other->stopping;
		pthread_mutex_unlock(&other->lock);
		pthread_mutex_lock(&st->lock);
		done = done || (wanted && *wanted) || st->stopping;
		if (!done) {
			/* The other trace's loader signals its own condition, not this one: poll. */
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 20 * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&st->cond, &st->lock, &ts);
		}
		pthread_mutex_unlock(&st->lock);
		if (done)
			return;
	}
}

/* In compare mode each trace pairs its operations (and the base reads its values and
 * names) once the other has its stacks, BASE sooner when a request waits for them: the
 * compare view's first answers need neither, and they would take a core from the other
 * trace's load.  Alone, pairing runs beside the stack pass. */
static int load_deferred(struct loader *ld, const struct trace_rows *rows)
{
	struct viewer_state *st = ld->st;
	double t = rss__now();
	int err = 0;

	/* NEW's pairs wait for BASE's stacks even when asked for (the UI's first NEW views
	 * do): they would slow BASE's load, and the compare view needs both. */
	wait_other(st, st->base ? st->base : st->first, READY_STACKS, st->first ? &st->wanted : NULL);
	pthread_mutex_lock(&st->lock);
	while (test_hooks__hold_deferred() && !st->wanted && !st->stopping)
		pthread_cond_wait(&st->cond, &st->lock);
	pthread_mutex_unlock(&st->lock);
	log__debug("load: deferred parts wait %.2f s", rss__now() - t);
	defer_priority(ld, true);
	if (st->first && !(err = load_details(ld, rows)))
		state__set_ready(st, READY_NAMES);
	if (!err)
		err = (int)(intptr_t)ops_main(st);
	return err;
}

static void *loader_main(void *arg)
{
	struct loader *ld = arg;
	struct viewer_state *st = ld->st;
	struct trace_rows rows, done = { 0 };
	pthread_t ops;
	bool compare = st->base || st->first, ops_started = false;
	void *ops_err = NULL;
	double t0 = rss__now();
	int err;

	memset(&rows, 0, sizeof(rows));
	err = create_payload_view(ld->con, &st->tf);
	if (!err)
		err = exact_counts__load(ld->con, &st->tf, &st->exact);
	if (!err)
		err = load_rows(ld, &rows);
	/* What the deferred parts need of pass 1 (pass 2 takes rows). */
	done.ts_sorted = rows.ts_sorted;
	memcpy(done.enum_type, rows.enum_type, sizeof(done.enum_type));
	if (!err) {
		state__set_ready(st, READY_ROWS | (st->first ? 0 : READY_NAMES));
		log__info("loaded %llu events in %.1f s; indexing and reading stacks",
			  (unsigned long long)st->m.n, rss__now() - t0);
		err = compare ? 0 : -pthread_create(&ops, NULL, ops_main, st);
		ops_started = !err && !compare;
	}
	if (!err)
		err = model__load_stacks(ld->con, &st->tf, &st->stopping, &st->m, &rows);
	trace_rows__free(&rows);
	if (!err) {
		state__set_ready(st, READY_STACKS);
		log__info("stacks in %.1f s (%u distinct)", rss__now() - t0,
			  st->m.nstacks > 2 ? st->m.nstacks - 2 : 0);
	}
	if (!err && compare)
		err = load_deferred(ld, &done);
	if (ops_started)
		pthread_join(ops, &ops_err);
	if (!err && ops_err)
		err = (int)(intptr_t)ops_err;
	if (!err) {
		/* The scheduling rows too, before a thread-state request has to wait for them
		 * (which reads them itself); in compare mode once the base has its stacks.
		 * "ready" is said after them: a file they cannot be read from is not served. */
		if (st->base)
			wait_other(st, st->base, READY_STACKS, NULL);
		pthread_mutex_lock(&st->sched_lock);
		if (!st->sched_read && !st->stopping)
			st->sched_read = sched__load(ld->con, &st->tf, &st->sched) ?: 1;
		err = st->sched_read < 0 ? st->sched_read : 0;
		pthread_mutex_unlock(&st->sched_lock);
	}
	if (!err) {
		log__debug("load: all parts in (%s)", rss__mib());
		log__info("ready in %.1f s", rss__now() - t0);
	}
	if (compare)
		defer_priority(ld, false);
	/* A file whose rows cannot be read (the scheduling rows included, read last) is not
	 * served: the failing step has logged what is wrong. */
	if (err && !st->stopping) {
		if (err == -ENOMEM)
			log__error("%s: out of memory while loading", st->tf.path);
		state__set_failed(st, "the trace could not be loaded");
		pthread_kill(ld->notify, SIGUSR1);
	}
	/* Requests' working arrays are reused from the arenas again, as before loading
	 * (32 MB is the most malloc's own adaptive threshold reaches), once no trace loads. */
	if (!__atomic_sub_fetch(&loading, 1, __ATOMIC_ACQ_REL))
		mallopt(M_MMAP_THRESHOLD, 32 << 20);
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
	/* Loading makes and drops many column-sized arrays on several threads.  Served from
	 * mmap they go back to the kernel when freed; from malloc's arenas they would stay
	 * resident after use.  4 MB, not lower: DuckDB's own buffers (up to a few MB) stay in
	 * the arenas, where the stack pass reuses them. */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	ld->st = st;
	ld->notify = notify;
	if (duckdb_connect(st->db, &ld->con) == DuckDBError) {
		free(ld);
		return -EIO;
	}
	__atomic_add_fetch(&loading, 1, __ATOMIC_ACQ_REL);
	err = -pthread_create(thread, NULL, loader_main, ld);
	if (err) {
		__atomic_sub_fetch(&loading, 1, __ATOMIC_ACQ_REL);
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

void loader__release(struct viewer_state *st)
{
	conn__free_all(st);
	ops__free(&st->ops);
	exact_counts__free(&st->exact);
	sched__free(&st->sched);
	model__free(&st->m);
	free(st->summary_json);
	free(st->lifetimes_json);
	free(st->lifetimes_error);
	trace_file__free(&st->tf);
}
