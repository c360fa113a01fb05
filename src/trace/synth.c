/* `probex synth -o FILE [--events N] [--seed S] [--duration-ms MS] [--sample-freq HZ]
 * [--lost-ppm P]`: write a realistic synthetic trace in the reference format (24 columns,
 * stack_trace as a list of labels, the two required metadata keys), identical for the same
 * arguments.  Rows are simulated in C (synth_sim.c), staged in DuckDB through data chunks,
 * then sorted into ring-buffer-like order and written as Parquet with the stacks attached. */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "trace/duck.h"
#include "trace/schema.h"
#include "trace/synth.h"
#include "trace/synth_model.h"
#include "trace/synth_rand.h"

/* Staging table columns, in chunk order. */
enum gcol {
	G_ORD, G_SEQ, G_ET, G_TS, G_PID, G_TGID, G_NAME, G_STACK, G_KIND, G_SID, G_KSID, G_CPU,
	G_PREV, G_NEXT, G_PSTATE, G_PARENT, G_CHILD, G_EXIT, G_ADDR, G_ERR, G_FD, G_COUNT,
	G_RET, G_SUBMIT, G_OPCODE, G_RES, G__COUNT,
};

static const struct {
	const char *name;
	duckdb_type type;
	const char *sql;
} gcols[G__COUNT] = {
	[G_ORD] = { "ord", DUCKDB_TYPE_UBIGINT, "UBIGINT" },
	[G_SEQ] = { "seq", DUCKDB_TYPE_UBIGINT, "UBIGINT" },
	[G_ET] = { "et", DUCKDB_TYPE_UTINYINT, "UTINYINT" },
	[G_TS] = { "ts", DUCKDB_TYPE_UBIGINT, "UBIGINT" },
	[G_PID] = { "pid", DUCKDB_TYPE_UINTEGER, "UINTEGER" },
	[G_TGID] = { "tgid", DUCKDB_TYPE_UINTEGER, "UINTEGER" },
	[G_NAME] = { "name", DUCKDB_TYPE_INTEGER, "INTEGER" },
	[G_STACK] = { "stack", DUCKDB_TYPE_INTEGER, "INTEGER" },
	[G_KIND] = { "kind", DUCKDB_TYPE_UTINYINT, "UTINYINT" },
	[G_SID] = { "sid", DUCKDB_TYPE_INTEGER, "INTEGER" },
	[G_KSID] = { "ksid", DUCKDB_TYPE_INTEGER, "INTEGER" },
	[G_CPU] = { "cpu", DUCKDB_TYPE_UTINYINT, "UTINYINT" },
	[G_PREV] = { "prev_pid", DUCKDB_TYPE_UINTEGER, "UINTEGER" },
	[G_NEXT] = { "next_pid", DUCKDB_TYPE_UINTEGER, "UINTEGER" },
	[G_PSTATE] = { "prev_state", DUCKDB_TYPE_BIGINT, "BIGINT" },
	[G_PARENT] = { "parent_pid", DUCKDB_TYPE_UINTEGER, "UINTEGER" },
	[G_CHILD] = { "child_pid", DUCKDB_TYPE_UINTEGER, "UINTEGER" },
	[G_EXIT] = { "exit_code", DUCKDB_TYPE_INTEGER, "INTEGER" },
	[G_ADDR] = { "address", DUCKDB_TYPE_UBIGINT, "UBIGINT" },
	[G_ERR] = { "error_code", DUCKDB_TYPE_UBIGINT, "UBIGINT" },
	[G_FD] = { "fd", DUCKDB_TYPE_BIGINT, "BIGINT" },
	[G_COUNT] = { "count", DUCKDB_TYPE_UBIGINT, "UBIGINT" },
	[G_RET] = { "ret", DUCKDB_TYPE_BIGINT, "BIGINT" },
	[G_SUBMIT] = { "submit_ts_ns", DUCKDB_TYPE_UBIGINT, "UBIGINT" },
	[G_OPCODE] = { "io_uring_opcode", DUCKDB_TYPE_UTINYINT, "UTINYINT" },
	[G_RES] = { "io_uring_res", DUCKDB_TYPE_INTEGER, "INTEGER" },
};

struct stager {
	duckdb_appender app;
	duckdb_data_chunk chunk;
	void *data[G__COUNT];
	uint64_t *valid[G__COUNT];
	idx_t n, cap;
	uint64_t seq;
	struct synth_rng jitter;
};

static void stager__bind_vectors(struct stager *g)
{
	for (int c = 0; c < G__COUNT; c++) {
		duckdb_vector v = duckdb_data_chunk_get_vector(g->chunk, c);

		duckdb_vector_ensure_validity_writable(v);
		g->data[c] = duckdb_vector_get_data(v);
		g->valid[c] = duckdb_vector_get_validity(v);
	}
}

static int stager__flush(struct stager *g)
{
	if (!g->n)
		return 0;
	duckdb_data_chunk_set_size(g->chunk, g->n);
	if (duckdb_append_data_chunk(g->app, g->chunk) == DuckDBError) {
		log__error("synth: staging rows: %s", duckdb_appender_error(g->app));
		return -EIO;
	}
	duckdb_data_chunk_reset(g->chunk);
	stager__bind_vectors(g);
	g->n = 0;
	return 0;
}

#define PUT(col, ctype, val) (((ctype *)g->data[col])[i] = (ctype)(val))

static void put_opt(struct stager *g, idx_t i, int col, bool set)
{
	duckdb_validity_set_row_validity(g->valid[col], i, set);
}

static int stager__emit(void *ctx, const struct synth_row *r)
{
	struct stager *g = ctx;
	idx_t i = g->n;
	uint32_t c = r->cols;

	/* File order is ring-buffer consumption order: by time, give or take the couple of
	 * microseconds by which CPUs race to reserve (spec 4.5), so consumers must sort. */
	PUT(G_ORD, uint64_t, r->ts + synth_rng__below(&g->jitter, 2000));
	PUT(G_SEQ, uint64_t, g->seq++);
	PUT(G_ET, uint8_t, r->event_type);
	PUT(G_TS, uint64_t, r->ts);
	PUT(G_PID, uint32_t, r->pid);
	PUT(G_TGID, uint32_t, r->tgid);
	PUT(G_NAME, int32_t, r->name);
	put_opt(g, i, G_NAME, c & SC_NAME);
	/* -1 stands for "no stack": every row then finds its stack row in the join below. */
	PUT(G_STACK, int32_t, (c & SC_STACK) ? r->stack : -1);
	PUT(G_KIND, uint8_t, r->stack_kind);
	put_opt(g, i, G_KIND, (c & SC_STACK) && r->stack_kind != SK_NONE);
	PUT(G_SID, int32_t, r->stack_id);
	put_opt(g, i, G_SID, (c & SC_STACK_IDS) && r->stack_id >= 0);
	PUT(G_KSID, int32_t, r->kernel_stack_id);
	put_opt(g, i, G_KSID, (c & SC_STACK_IDS) && r->kernel_stack_id >= 0);
	PUT(G_CPU, uint8_t, r->cpu);
	PUT(G_PREV, uint32_t, r->prev_pid);
	PUT(G_NEXT, uint32_t, r->next_pid);
	PUT(G_PSTATE, int64_t, r->prev_state);
	put_opt(g, i, G_PREV, c & SC_SWITCH);
	put_opt(g, i, G_NEXT, c & SC_SWITCH);
	put_opt(g, i, G_PSTATE, c & SC_SWITCH);
	PUT(G_PARENT, uint32_t, r->parent_pid);
	PUT(G_CHILD, uint32_t, r->child_pid);
	put_opt(g, i, G_PARENT, c & SC_FORK);
	put_opt(g, i, G_CHILD, c & SC_FORK);
	PUT(G_EXIT, int32_t, r->exit_code);
	put_opt(g, i, G_EXIT, c & SC_EXIT);
	PUT(G_ADDR, uint64_t, r->address);
	put_opt(g, i, G_ADDR, c & SC_ADDRESS);
	PUT(G_ERR, uint64_t, r->error_code);
	put_opt(g, i, G_ERR, c & SC_ERROR_CODE);
	PUT(G_FD, int64_t, r->fd);
	put_opt(g, i, G_FD, c & SC_FD);
	PUT(G_COUNT, uint64_t, r->count);
	put_opt(g, i, G_COUNT, c & SC_COUNT);
	PUT(G_RET, int64_t, r->ret);
	put_opt(g, i, G_RET, c & SC_RET);
	PUT(G_SUBMIT, uint64_t, r->submit_ts);
	PUT(G_OPCODE, uint8_t, r->io_uring_opcode);
	PUT(G_RES, int32_t, r->io_uring_res);
	put_opt(g, i, G_SUBMIT, c & SC_URING);
	put_opt(g, i, G_OPCODE, c & SC_URING);
	put_opt(g, i, G_RES, c & SC_URING);
	if (++g->n == g->cap)
		return stager__flush(g);
	return 0;
}

static int create_staging(duckdb_connection con)
{
	char sql[2048];
	size_t n = 0;

	n += (size_t)snprintf(sql + n, sizeof(sql) - n, "CREATE OR REPLACE TABLE g (");
	for (int c = 0; c < G__COUNT; c++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, "%s%s %s", c ? ", " : "",
				      gcols[c].name, gcols[c].sql);
	snprintf(sql + n, sizeof(sql) - n, ")");
	return duck__exec(con, sql);
}

/* Simulate into the staging table; returns the number of rows staged. */
static int64_t stage_rows(duckdb_connection con, const struct synth_params *p, double scale,
			  struct synth_stacks *st)
{
	struct stager g = { .cap = duckdb_vector_size(), .jitter = { synth__mix(p->seed ^ 0x51ed) } };
	duckdb_logical_type types[G__COUNT] = { 0 };
	int64_t n = -EIO;

	if (create_staging(con))
		return -EIO;
	if (duckdb_appender_create(con, NULL, "g", &g.app) == DuckDBError) {
		log__error("synth: %s", duckdb_appender_error(g.app));
		goto cleanup;
	}
	for (int c = 0; c < G__COUNT; c++)
		types[c] = duckdb_create_logical_type(gcols[c].type);
	g.chunk = duckdb_create_data_chunk(types, G__COUNT);
	stager__bind_vectors(&g);
	n = synth__simulate(p, scale, st, stager__emit, &g);
	if (n >= 0 && (stager__flush(&g) || duckdb_appender_close(g.app) == DuckDBError))
		n = -EIO;
cleanup:
	if (g.chunk)
		duckdb_destroy_data_chunk(&g.chunk);
	for (int c = 0; c < G__COUNT; c++)
		if (types[c])
			duckdb_destroy_logical_type(&types[c]);
	duckdb_appender_destroy(&g.app);
	return n;
}

static int stage_stacks(duckdb_connection con, const struct synth_stacks *st)
{
	duckdb_appender app = NULL;
	int err = 0;

	if (duck__exec(con, "CREATE OR REPLACE TABLE stk (id INTEGER, s VARCHAR)"))
		return -EIO;
	if (duckdb_appender_create(con, NULL, "stk", &app) == DuckDBError)
		err = -EIO;
	for (size_t i = 0; !err && i < st->n; i++) {
		if (duckdb_appender_begin_row(app) == DuckDBError ||
		    duckdb_append_int32(app, (int32_t)i) == DuckDBError ||
		    duckdb_append_varchar(app, st->joined[i]) == DuckDBError ||
		    duckdb_appender_end_row(app) == DuckDBError)
			err = -EIO;
	}
	if (!err && duckdb_appender_close(app) == DuckDBError)
		err = -EIO;
	if (err)
		log__error("synth: staging stacks: %s", duckdb_appender_error(app));
	duckdb_appender_destroy(&app);
	if (!err)
		err = duck__exec(con, "CREATE OR REPLACE TABLE stl AS SELECT id, string_split(s, chr(31)) AS l "
				      "FROM stk UNION ALL SELECT -1, NULL");
	return err;
}

/* Append a SQL list literal of quoted strings to buf. */
static int list_literal(char *buf, size_t size, const char *const *items, unsigned int n)
{
	size_t len = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (len + 4 >= size)
			return -ENOSPC;
		buf[len++] = i ? ',' : '[';
		if (duck__quote(buf + len, size - len, items[i]))
			return -ENOSPC;
		len += strlen(buf + len);
	}
	if (len + 2 >= size)
		return -ENOSPC;
	buf[len++] = ']';
	buf[len] = 0;
	return 0;
}

static int write_parquet(duckdb_connection con, const char *path, const struct synth_params *p,
			 unsigned long freq, uint64_t row_group)
{
	static const char *const kinds[] = { "user", "kernel", "both" };
	char types[2048], names[512], kindl[64], lit[4200], *sql = NULL;
	int err = -ENOMEM;

	if (list_literal(types, sizeof(types), event_type_names, EV__COUNT) ||
	    list_literal(names, sizeof(names), synth_names, synth_names_count) ||
	    list_literal(kindl, sizeof(kindl), kinds, 3) || duck__quote(lit, sizeof(lit), path)) {
		log__error("synth: %s: path too long", path);
		return -ENAMETOOLONG;
	}
	/* Column names, order and types are the reference's (spec 4.1).  Row groups default
	 * to DuckDB's 122 880 rows: writing the reference's 1 048 576-row groups is five times
	 * slower here (one thread builds each group); --row-group-size gives that layout. */
	if (asprintf(&sql,
		     "COPY (SELECT %s[et + 1] AS event_type, ts AS ts_ns, pid, tgid, "
		     "%s[name + 1] AS process_name, sid AS stack_id, ksid AS kernel_stack_id, "
		     "%s[kind] AS stack_kind, stl.l AS stack_trace, cpu, prev_pid, next_pid, "
		     "prev_state, parent_pid, child_pid, exit_code, address, error_code, fd, count, "
		     "ret, submit_ts_ns, io_uring_opcode, io_uring_res "
		     "FROM (SELECT * FROM g ORDER BY ord, seq LIMIT %llu) g JOIN stl ON stl.id = g.stack) TO %s "
		     "(FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE %llu, "
		     "KV_METADATA {\"%s\": '%lu', \"%s\": '%s'})",
		     types, names, kindl, (unsigned long long)p->events, lit,
		     (unsigned long long)row_group, META_SAMPLE_FREQ_HZ, freq, META_STACK_FORMAT,
		     META_STACK_FORMAT_V1) < 0)
		return -ENOMEM;
	err = duck__exec(con, sql);
	free(sql);
	return err;
}

static int parse_u64(const char *s, const char *what, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-') {
		log__error("synth: %s must be a non-negative integer, got '%s'", what, s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: probex synth -o FILE [--events N] [--seed S] [--duration-ms MS]\n"
		"                    [--sample-freq HZ] [--lost-ppm P] [--row-group-size N]\n"
		"  Write a synthetic trace in the reference format, identical for equal arguments.\n"
		"  --events N       rows (default 1000000)\n"
		"  --seed S         workload seed (default 1)\n"
		"  --duration-ms MS trace length (default: 3 us per event)\n"
		"  --sample-freq HZ probex.sample_freq_hz metadata (default 1999)\n"
		"  --lost-ppm P     drop P per million syscall rows, as a lossy recorder would\n"
		"  --row-group-size N  Parquet rows per row group (default 122880; the\n"
		"                   reference writes 1048576)\n");
}

int synth__main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' }, { "events", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' }, { "duration-ms", required_argument, NULL, 'd' },
		{ "sample-freq", required_argument, NULL, 'f' }, { "lost-ppm", required_argument, NULL, 'l' },
		{ "row-group-size", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' }, { 0 },
	};
	struct synth_params p = { .events = 1000000, .seed = 1 };
	uint64_t freq = 1999, dur_ms = 0, lost = 0, row_group = 122880;
	duckdb_database db = NULL;
	duckdb_connection con = NULL;
	struct synth_stacks st;
	const char *out = NULL;
	char *tmp = NULL;
	double scale = 1.08;
	int64_t staged;
	int c, ret = 1;

	optind = 1;
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	mallopt(M_TOP_PAD, 64 << 20);
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'n': if (parse_u64(optarg, "--events", &p.events)) return 2; break;
		case 's': if (parse_u64(optarg, "--seed", &p.seed)) return 2; break;
		case 'd': if (parse_u64(optarg, "--duration-ms", &dur_ms)) return 2; break;
		case 'f': if (parse_u64(optarg, "--sample-freq", &freq)) return 2; break;
		case 'l': if (parse_u64(optarg, "--lost-ppm", &lost)) return 2; break;
		case 'g': if (parse_u64(optarg, "--row-group-size", &row_group)) return 2; break;
		case 'h': usage(); return 0;
		default: usage(); return 2;
		}
	}
	if (!out || optind != argc || !freq || lost > 1000000 || p.events > (1ull << 32) || !row_group) {
		usage();
		return 2;
	}
	p.lost_ppm = (uint32_t)lost;
	p.duration_ns = dur_ms ? dur_ms * 1000000ull : (p.events ? p.events : 1) * 3000ull;
	synth_stacks__init(&st);
	/* One thread: on two cores DuckDB's order-preserving COPY keeps a second thread busy
	 * polling for work rather than doing any (measured: 7.4 s vs 10.6 s per 1M rows). */
	if (duck__open_memory(&db, &con, 1) || asprintf(&tmp, "%s.tmp", out) < 0)
		goto cleanup;
	/* Threads end when their time runs out, so the row count is only known afterwards:
	 * simulate a little more than asked and keep the first N rows in time. */
	for (int tries = 0;; tries++) {
		staged = stage_rows(con, &p, scale, &st);
		if (staged < 0)
			goto cleanup;
		if ((uint64_t)staged >= p.events)
			break;
		if (tries == 5) {
			log__error("synth: the workload model produced only %lld of %llu rows",
				   (long long)staged, (unsigned long long)p.events);
			goto cleanup;
		}
		scale *= 1.1 * (double)p.events / (double)(staged ? staged : 1);
	}
	if (stage_stacks(con, &st) || write_parquet(con, tmp, &p, freq, row_group))
		goto cleanup;
	if (rename(tmp, out)) {
		log__error("synth: cannot rename %s to %s: %s", tmp, out, strerror(errno));
		goto cleanup;
	}
	log__info("synth: wrote %s: %llu events, %zu distinct stacks", out,
		  (unsigned long long)p.events, st.n);
	ret = 0;
cleanup:
	if (ret && tmp)
		remove(tmp);
	free(tmp);
	synth_stacks__free(&st);
	duckdb_disconnect(&con);
	duckdb_close(&db);
	return ret;
}
