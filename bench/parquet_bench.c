/* make bench-parquet: the direct Parquet writer on a syscall-shaped trace vs DuckDB COPY.
 *
 * Builds N rows (default 1.2M) of the trace schema in memory — read/write enter/exit
 * pairs with fd/count/ret/latency, some sched_switch and page_fault rows, ~1% cpu_sample
 * rows carrying a ~20-label stack list from a 2000-label dictionary — then times
 * pq_writer open → row groups → close (fsync included) and DuckDB's COPY of the same
 * table to ZSTD Parquet, and checks both files hold the same data.
 *
 * usage: parquet_bench [-n rows] [-g rows_per_group] [-t threads] [-z level] [-r runs]
 *                      [-d dir] [-D (skip DuckDB)] [-k (keep DIR/parquet-bench.parquet)] */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trace/duck.h"
#include "parquet/parquet.h"
#include "trace/schema.h"

enum { NLABELS = 2000, NSTACKS = 600, MAXCOLS = 40 };

struct bcol {
	struct pq_column_def def;
	void *values;
	uint8_t *valid;
	const struct pq_dict *dict;
	const struct pq_lists *lists;
};

struct bench {
	uint32_t n;
	int ncols;
	struct bcol cols[MAXCOLS];
	struct pq_dict ev_dict, comm_dict, kind_dict, label_dict, file_dict;
	struct pq_lists stacks;
};

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t rnd(uint32_t mod)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % mod);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	return p;
}

static struct bcol *add(struct bench *b, const char *name, enum pq_type t, bool required)
{
	static const size_t sizes[] = { [PQ_U8] = 1, [PQ_U32] = 4, [PQ_I32] = 4, [PQ_U64] = 8,
					[PQ_I64] = 8, [PQ_BOOL] = 1, [PQ_STRING] = 4,
					[PQ_STRING_LIST] = 4 };
	struct bcol *c = &b->cols[b->ncols++];

	c->def = (struct pq_column_def){ name, t, required };
	c->values = xcalloc(b->n, sizes[t]);
	c->valid = required ? NULL : xcalloc(b->n, 1);
	/* Touch everything as a caller filling its arrays would: fresh-page faults on the
	 * inputs are the caller's cost (and dominate a cold run on this VM otherwise). */
	if (!getenv("PQ_BENCH_UNTOUCHED")) {
		memset(c->values, 0, b->n * sizes[t]);
		if (c->valid)
			memset(c->valid, 0, b->n);
	}
	return c;
}

static void dict_init(struct pq_dict *d, uint32_t n, const char *(*name)(uint32_t))
{
	const char **strs = xcalloc(n, sizeof(*strs));
	uint32_t *lens = xcalloc(n, sizeof(*lens));

	for (uint32_t i = 0; i < n; i++) {
		strs[i] = name(i);
		lens[i] = (uint32_t)strlen(strs[i]);
	}
	*d = (struct pq_dict){ strs, lens, n };
}

static const char *ev_name(uint32_t i)
{
	return event_type_names[i];
}

static const char *comm_name(uint32_t i)
{
	static const char *const c[] = { "dd", "bash", "kworker/0:1", "probex-workload" };

	return c[i];
}

static const char *kind_name(uint32_t i)
{
	static const char *const k[] = { "user", "kernel", "both" };

	return k[i];
}

static const char *label_name(uint32_t i)
{
	char buf[96];

	snprintf(buf, sizeof(buf), "%s_fn_%u (%s+0x%x)", i % 3 ? "app" : "__libc",
		 i * 2654435761u % 100000, i % 5 ? "/usr/lib/libworkload.so" : "[kernel]",
		 i * 97 % 65536);
	return strdup(buf);
}

static const char *file_name(uint32_t i)
{
	static const char *const f[] = { "/usr/lib/x86_64-linux-gnu/libc.so.6", "/tmp/data.bin" };

	return f[i];
}

#define V(c, T) ((T *)(c)->values)

static void build(struct bench *b)
{
	struct bcol *ev, *ts, *pid, *tgid, *comm, *sid, *ksid, *kind, *stack, *cpu, *prev_pid,
		*next_pid, *prev_state, *parent_pid, *child_pid, *exit_code, *address, *error_code,
		*fd, *count, *ret, *submit, *iou_op, *iou_res, *lat, *weight, *child_tgid,
		*is_thread, *exit_sig, *prev_tgid, *next_tgid, *filename, *prot, *flags, *mfd,
		*udata;
	uint32_t *offs = xcalloc(NSTACKS + 1, sizeof(*offs)), *items;
	uint64_t t = 5000000000000ull;

	dict_init(&b->ev_dict, EV__COUNT, ev_name);
	dict_init(&b->comm_dict, 4, comm_name);
	dict_init(&b->kind_dict, 3, kind_name);
	dict_init(&b->label_dict, NLABELS, label_name);
	dict_init(&b->file_dict, 2, file_name);
	items = xcalloc(NSTACKS * 25, sizeof(*items));
	for (uint32_t s = 0; s < NSTACKS; s++) {
		uint32_t depth = 15 + rnd(11);

		offs[s + 1] = offs[s] + depth;
		for (uint32_t j = 0; j < depth; j++)	/* shared roots, varied leaves */
			items[offs[s] + j] = j < 6 ? j : rnd(NLABELS);
	}
	b->stacks = (struct pq_lists){ offs, items, NSTACKS };

	ev = add(b, "event_type", PQ_STRING, true);
	ts = add(b, "ts_ns", PQ_U64, true);
	pid = add(b, "pid", PQ_U32, true);
	tgid = add(b, "tgid", PQ_U32, true);
	comm = add(b, "process_name", PQ_STRING, false);
	sid = add(b, "stack_id", PQ_I32, false);
	ksid = add(b, "kernel_stack_id", PQ_I32, false);
	kind = add(b, "stack_kind", PQ_STRING, false);
	stack = add(b, "stack_trace", PQ_STRING_LIST, false);
	cpu = add(b, "cpu", PQ_U32, false);
	prev_pid = add(b, "prev_pid", PQ_U32, false);
	next_pid = add(b, "next_pid", PQ_U32, false);
	prev_state = add(b, "prev_state", PQ_I64, false);
	parent_pid = add(b, "parent_pid", PQ_U32, false);
	child_pid = add(b, "child_pid", PQ_U32, false);
	exit_code = add(b, "exit_code", PQ_I32, false);
	address = add(b, "address", PQ_U64, false);
	error_code = add(b, "error_code", PQ_U64, false);
	fd = add(b, "fd", PQ_I64, false);
	count = add(b, "count", PQ_U64, false);
	ret = add(b, "ret", PQ_I64, false);
	submit = add(b, "submit_ts_ns", PQ_U64, false);
	iou_op = add(b, "io_uring_opcode", PQ_U8, false);
	iou_res = add(b, "io_uring_res", PQ_I32, false);
	lat = add(b, "latency_ns", PQ_U64, false);
	weight = add(b, "stack_weight", PQ_U32, false);
	child_tgid = add(b, "child_tgid", PQ_U32, false);
	is_thread = add(b, "is_thread", PQ_BOOL, false);
	exit_sig = add(b, "exit_signal", PQ_I32, false);
	prev_tgid = add(b, "prev_tgid", PQ_U32, false);
	next_tgid = add(b, "next_tgid", PQ_U32, false);
	filename = add(b, "filename", PQ_STRING, false);
	prot = add(b, "mmap_prot", PQ_U32, false);
	flags = add(b, "mmap_flags", PQ_U32, false);
	mfd = add(b, "mmap_fd", PQ_I32, false);
	udata = add(b, "io_uring_user_data", PQ_U64, false);
	comm->dict = &b->comm_dict;
	ev->dict = &b->ev_dict;
	kind->dict = &b->kind_dict;
	stack->dict = &b->label_dict;
	stack->lists = &b->stacks;
	filename->dict = &b->file_dict;

	for (uint32_t i = 0; i < b->n; i++) {
		uint32_t r = rnd(1000), p = rnd(4);
		bool enter = i % 2 == 0;

		t += 300 + rnd(900);
		V(ts, uint64_t)[i] = t;
		V(pid, uint32_t)[i] = 4242 + p;
		V(tgid, uint32_t)[i] = 4242;
		V(comm, uint32_t)[i] = 3;
		comm->valid[i] = 1;
		V(cpu, uint32_t)[i] = p & 1;
		cpu->valid[i] = 1;
		V(stack, int32_t)[i] = -1;
		if (r < 10) {				/* cpu_sample with a stack */
			uint32_t s = rnd(NSTACKS);

			V(ev, uint32_t)[i] = EV_CPU_SAMPLE;
			V(sid, int32_t)[i] = (int32_t)s;
			V(ksid, int32_t)[i] = (int32_t)(s % 50);
			V(kind, uint32_t)[i] = 2;
			V(stack, int32_t)[i] = (int32_t)s;
			V(weight, uint32_t)[i] = 1;
			sid->valid[i] = ksid->valid[i] = kind->valid[i] = weight->valid[i] = 1;
		} else if (r < 60) {			/* sched_switch */
			V(ev, uint32_t)[i] = EV_SCHED_SWITCH;
			V(prev_pid, uint32_t)[i] = 4242 + p;
			V(next_pid, uint32_t)[i] = rnd(3) ? 0 : 4242 + rnd(4);
			V(prev_state, int64_t)[i] = rnd(2);
			V(prev_tgid, uint32_t)[i] = 4242;
			V(next_tgid, uint32_t)[i] = 4242;
			prev_pid->valid[i] = next_pid->valid[i] = prev_state->valid[i] = 1;
			prev_tgid->valid[i] = next_tgid->valid[i] = 1;
		} else if (r < 100) {			/* page_fault */
			V(ev, uint32_t)[i] = EV_PAGE_FAULT;
			V(address, uint64_t)[i] = 0x7f0000000000ull + (uint64_t)rnd(1 << 30) * 4096;
			V(error_code, uint64_t)[i] = 6;
			address->valid[i] = error_code->valid[i] = 1;
		} else if (r < 102) {			/* mmap exit */
			V(ev, uint32_t)[i] = EV_MMAP_EXIT;
			V(filename, uint32_t)[i] = rnd(2);
			V(prot, uint32_t)[i] = 5;
			V(flags, uint32_t)[i] = 2;
			V(mfd, int32_t)[i] = 3;
			filename->valid[i] = prot->valid[i] = flags->valid[i] = mfd->valid[i] = 1;
		} else if (enter) {			/* read/write enter */
			V(ev, uint32_t)[i] = r & 1 ? EV_WRITE_ENTER : EV_READ_ENTER;
			V(fd, int64_t)[i] = r & 1 ? 1 : 0;
			V(count, uint64_t)[i] = 4096;
			fd->valid[i] = count->valid[i] = 1;
		} else {				/* read/write exit */
			V(ev, uint32_t)[i] = r & 1 ? EV_WRITE_EXIT : EV_READ_EXIT;
			V(ret, int64_t)[i] = rnd(50) ? 4096 : -11;
			V(lat, uint64_t)[i] = 800 + rnd(20000);
			ret->valid[i] = lat->valid[i] = 1;
		}
	}
	/* never-set columns stay all-null, as in a syscall-only trace */
	(void)parent_pid, (void)child_pid, (void)exit_code, (void)submit, (void)iou_op;
	(void)iou_res, (void)child_tgid, (void)is_thread, (void)exit_sig, (void)udata;
}

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static int write_file(const struct bench *b, const char *path, uint32_t group,
		      const struct pq_options *o)
{
	struct pq_column_def defs[MAXCOLS];
	struct pq_column_data d[MAXCOLS];
	struct pq_kv kv[] = { { "probex.sample_freq_hz", "1999" },
			      { "probex.stack_trace_format", "symbolized_v1" } };
	struct pq_writer *w;
	int err;

	for (int c = 0; c < b->ncols; c++)
		defs[c] = b->cols[c].def;
	err = pq_writer__open(&w, path, defs, b->ncols, o);
	if (err)
		return err;
	for (uint32_t r = 0; r < b->n; r += group) {
		uint32_t n = b->n - r < group ? b->n - r : group;

		for (int c = 0; c < b->ncols; c++) {
			const struct bcol *bc = &b->cols[c];
			size_t size = bc->def.type == PQ_U8 || bc->def.type == PQ_BOOL ? 1 :
				      bc->def.type == PQ_U64 || bc->def.type == PQ_I64 ? 8 : 4;

			d[c] = (struct pq_column_data){ (const char *)bc->values + r * size,
							bc->valid ? bc->valid + r : NULL,
							bc->dict, bc->lists };
		}
		err = pq_writer__write_row_group(w, n, d);
		if (err) {
			pq_writer__abort(w);
			return err;
		}
	}
	return pq_writer__close(w, kv, 2);
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

static int query(duckdb_connection con, const char *sql, char *out, size_t size)
{
	duckdb_result res;
	char *v;

	if (duckdb_query(con, sql, &res) == DuckDBError) {
		fprintf(stderr, "%s: %s\n", sql, duckdb_result_error(&res));
		duckdb_destroy_result(&res);
		return -EIO;
	}
	if (out) {
		v = duckdb_value_varchar(&res, 0, 0);
		snprintf(out, size, "%s", v ? v : "NULL");
		duckdb_free(v);
	}
	duckdb_destroy_result(&res);
	return 0;
}

/* DuckDB: load our file into a table (untimed), COPY it out at 1 and 2 threads, and check
 * that our file and DuckDB's hold the same rows (EXCEPT ALL both ways). */
static int duck_compare(const char *ours, const char *dir, int zstd_level)
{
	duckdb_database db;
	duckdb_connection con;
	char sql[24000], diff[64], copy[4200];
	int err;

	err = duck__open_memory(&db, &con, 0);
	if (err)
		return err;
	snprintf(sql, sizeof(sql), "CREATE TABLE t AS SELECT * FROM read_parquet('%s')", ours);
	err = query(con, sql, NULL, 0);
	for (int threads = 1; threads <= 2 && !err; threads++) {
		double t0;

		snprintf(copy, sizeof(copy), "%s/duckdb-%d.parquet", dir, threads);
		snprintf(sql, sizeof(sql), "SET threads = %d", threads);
		err = query(con, sql, NULL, 0);
		snprintf(sql, sizeof(sql),
			 "COPY t TO '%s' (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL %d)",
			 copy, zstd_level);
		t0 = now();
		if (!err)
			err = query(con, sql, NULL, 0);
		printf("duckdb COPY,   %d thread%s %.3f s                    %5.1f MB\n", threads,
		       threads > 1 ? "s:" : ": ", now() - t0, file_size(copy) / 1e6);
	}
	snprintf(sql, sizeof(sql),
		 "SELECT (SELECT count(*) FROM read_parquet('%s')) || ' rows, ' || "
		 "(SELECT count(*) FROM (FROM read_parquet('%s') EXCEPT ALL FROM read_parquet('%s')))"
		 " + (SELECT count(*) FROM (FROM read_parquet('%s') EXCEPT ALL FROM "
		 "read_parquet('%s'))) || ' differ'", ours, ours, copy, copy, ours);
	if (!err)
		err = query(con, sql, diff, sizeof(diff));
	if (!err) {
		printf("our file vs DuckDB's: %s\n", diff);
		if (!strstr(diff, " 0 differ"))
			err = -EINVAL;
	}
	for (int threads = 1; threads <= 2; threads++) {
		snprintf(copy, sizeof(copy), "%s/duckdb-%d.parquet", dir, threads);
		unlink(copy);
	}
	duckdb_disconnect(&con);
	duckdb_close(&db);
	return err;
}

int main(int argc, char **argv)
{
	struct bench b = { .n = 1200000 };
	struct pq_options o = { .zstd_level = 1, .threads = 0 };	/* 0: 1 then 2 */
	uint32_t group = 122880;
	const char *dir = "build";
	int runs = 3, opt, err = 0;
	bool duck = true, keep = false;
	char path[4096];
	long rss0;

	while ((opt = getopt(argc, argv, "n:g:t:z:r:d:Dk")) != -1) {
		switch (opt) {
		case 'n': b.n = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'g': group = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 't': o.threads = atoi(optarg); break;
		case 'z': o.zstd_level = atoi(optarg); break;
		case 'r': runs = atoi(optarg); break;
		case 'd': dir = optarg; break;
		case 'D': duck = false; break;
		case 'k': keep = true; break;
		default:
			fprintf(stderr, "usage: %s [-n rows] [-g group] [-t threads] [-z level] "
					"[-r runs] [-d dir] [-D] [-k]\n", argv[0]);
			return 2;
		}
	}
	if (!group || runs < 1)
		return 2;
	snprintf(path, sizeof(path), "%s/parquet-bench.parquet", dir);
	build(&b);
	printf("%u rows x %d columns, row groups of %u, zstd level %d, output %s\n", b.n,
	       b.ncols, group, o.zstd_level, path);

	for (int threads = o.threads ? o.threads : 1; threads <= (o.threads ? o.threads : 2) && !err;
	     threads++) {
		struct pq_options to = o;
		double best = 1e9, first = 0;
		long flt = 0;

		to.threads = threads;
		rss0 = maxrss_kb();
		for (int r = 0; r < runs && !err; r++) {
			double t0 = now(), dt;
			long f0 = minflt();

			err = write_file(&b, path, group, &to);
			dt = now() - t0;
			if (!r) {
				first = dt;
				flt = minflt() - f0;
			}
			best = dt < best ? dt : best;
		}
		if (err) {
			fprintf(stderr, "write failed: %s\n", strerror(-err));
			break;
		}
		printf("probex writer, %d thread%s %.3f s (best of %d %.3f s)  %5.1f MB"
		       "  peak RSS +%ld MB, %ld page faults\n", threads, threads > 1 ? "s:" : ": ",
		       first, runs, best, file_size(path) / 1e6, (maxrss_kb() - rss0) / 1024, flt);
	}
	if (!err && duck)
		err = duck_compare(path, dir, o.zstd_level);
	if (!keep)
		unlink(path);
	return err ? 1 : 0;
}
