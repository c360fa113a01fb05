/* Endpoints over completed operations (ops.h): syscall_latency_stats, io_statistics and
 * memory_statistics, with the 0.1 viewer API's two percentile rules and, on request
 * (max_points), bounded arrays plus CDF and histogram fields. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/pct.h"
#include "model/dist.h"
#include "model/opstats.h"
#include "server/api.h"
#include "server/ep_exact.h"
#include "server/iofiles.h"
#include "trace/syscalls.h"

static uint64_t sel_lat(const void *ctx, uint64_t k)
{
	return op_sel__lat(ctx, k);
}

static uint64_t sel_size(const void *ctx, uint64_t k)
{
	return op_sel__size(ctx, k);
}

static int sel_status(struct request *rq, struct op_sel *sel, int err)
{
	if (err == -EINVAL)
		return api__fail(rq, 500, "query failed: %s", sel->error);
	return api__fail(rq, 500, "out of memory");
}

/* Left open for the exact fields. */
static void latency_summary(struct json *j, const struct lat_summary *s)
{
	json__obj_begin(j);
	json__key(j, "count");
	json__u64(j, s->count);
	json__key(j, "avg_ns");
	json__u64(j, s->avg_ns);
	json__key(j, "p50_ns");
	json__u64(j, s->p50_ns);
	json__key(j, "p95_ns");
	json__u64(j, s->p95_ns);
	json__key(j, "max_ns");
	json__u64(j, s->max_ns);
}

int ep_syscall_latency_stats(struct request *rq)
{
	struct syscall_latency sl;
	struct window w;
	int status, err;

	if ((status = api__window(rq, &w)))
		return status;
	err = model__syscall_latency(&rq->st->m, &rq->st->ops, &w, &sl);
	if (err == -EINVAL)
		return api__fail(rq, 500, "query failed: %s", sl.error);
	if (err)
		return api__fail(rq, 500, "out of memory");
	json__obj_begin(&rq->out);
	for (int i = 0; i < SYSCALL_LAT_OPS; i++) {
		char type[64];

		json__key(&rq->out, op_names[sl.op[i]]);
		latency_summary(&rq->out, &sl.lat[i]);
		exact_json__op_type(op_names[sl.op[i]], type, sizeof(type));
		exact_json__op(&rq->out, &rq->st->exact, &rq->st->m, &w, type, sl.lat[i].count);
		json__obj_end(&rq->out);
	}
	json__key(&rq->out, "mmap_alloc_bytes");
	json__u64(&rq->out, sl.mmap_alloc_bytes);
	json__key(&rq->out, "munmap_free_bytes");
	json__u64(&rq->out, sl.munmap_free_bytes);
	exact_json__note(&rq->out, &rq->st->exact, &rq->st->m, &w);
	json__obj_end(&rq->out);
	return 200;
}

static void event_detail(struct request *rq, const struct op_sel *sel, uint64_t k)
{
	struct json *j = &rq->out;
	struct op_rec r;

	op_sel__get(sel, k, &r);
	json__obj_begin(j);
	json__key(j, "ts_ns");
	json__u64(j, r.end);
	json__key(j, "latency_ns");
	json__u64(j, r.lat);
	json__key(j, "event_type");
	json__str(j, sel->name);
	json__key(j, "pid");
	json__u64(j, r.pid);
	json__key(j, "stack_trace");
	api__stack(rq, r.srn);
	json__obj_end(j);
}

/* IoTypeStats; percentile events by pct__index (the table's rule).  With w, the exact
 * count's fields where the rows are fewer. */
static void type_stats(struct request *rq, const struct op_sel *sel, uint64_t bytes,
		       uint64_t max_points, const struct window *w, const struct io_files *files)
{
	static const unsigned int pct[] = { 50, 95, 99 };
	static const char *const keys[] = { "p50_event", "p95_event", "p99_event" };
	struct json *j = &rq->out;
	uint64_t n = sel->n;

	json__obj_begin(j);
	json__key(j, "operation");
	json__str(j, sel->name);
	json__key(j, "total_ops");
	json__u64(j, n);
	json__key(j, "total_bytes");
	json__u64(j, bytes);
	json__key(j, "avg_latency_ns");
	json__u64(j, op_sel__lat_avg(sel));
	for (int i = 0; i < 3; i++) {
		json__key(j, keys[i]);
		event_detail(rq, sel, pct__index(n, pct[i]));
	}
	json__key(j, "max_event");
	event_detail(rq, sel, n - 1);
	json__key(j, "latencies_ns");
	dist__values(j, sel_lat, sel, n, max_points);
	json__key(j, "sizes_bytes");
	dist__values(j, sel_size, sel, n, max_points);
	json__key(j, "latency_cdf");
	dist__cdf(j, sel_lat, sel, n, max_points);
	json__key(j, "size_cdf");
	dist__cdf(j, sel_size, sel, n, max_points);
	json__key(j, "latency_histogram");
	dist__histogram(j, sel_lat, sel, n);
	json__key(j, "size_histogram");
	dist__histogram(j, sel_size, sel, n);
	if (files && rq->st->tf.has_fd_path) {
		/* Additive: where the calls went (the io_uring op's fd is the ring's). */
		json__key(j, "files");
		io_files__json(j, files, sel->op == OP_IO_URING ? "" : sel->name);
	}
	if (w) {
		char type[160];

		exact_json__op_type(sel->name, type, sizeof(type));
		exact_json__op(j, &rq->st->exact, &rq->st->m, w, type, n);
	}
	json__obj_end(j);
}

struct op_out {
	struct op_sel *sel;
	uint64_t bytes;
};

static int cmp_op_out(const void *x, const void *y)
{
	const struct op_out *a = x, *b = y;

	/* The 0.1 viewer API's operations first; then by op count, descending; ties by name
	 * (0.1 left them in hash-map order). */
	if ((a->sel->op < OP__COUNT) != (b->sel->op < OP__COUNT))
		return a->sel->op < OP__COUNT ? -1 : 1;
	if (a->sel->n != b->sel->n)
		return a->sel->n > b->sel->n ? -1 : 1;
	return strcmp(a->sel->name, b->sel->name);
}

static void by_operation(struct request *rq, struct op_sel *sels, int nsel, uint64_t max_points,
			 const struct window *w, const struct io_files *files, uint64_t *total_ops,
			 uint64_t *total_bytes)
{
	struct op_out out[OP_MAX];
	int n = 0;

	*total_ops = *total_bytes = 0;
	for (int i = 0; i < nsel; i++) {
		if (!sels[i].n)
			continue;	/* only operations the window holds are listed */
		out[n].sel = &sels[i];
		out[n].bytes = op_sel__bytes_sum(&sels[i]);
		*total_ops += sels[i].n;
		*total_bytes = *total_bytes + out[n].bytes < *total_bytes ? UINT64_MAX :
			       *total_bytes + out[n].bytes;
		n++;
	}
	qsort(out, (size_t)n, sizeof(out[0]), cmp_op_out);
	json__key(&rq->out, "by_operation");
	json__arr_begin(&rq->out);
	for (int i = 0; i < n; i++)
		type_stats(rq, out[i].sel, out[i].bytes, max_points, w, files);
	json__arr_end(&rq->out);
}

static void time_range(struct json *j, const struct window *w)
{
	json__key(j, "time_range_ns");
	json__arr_begin(j);
	json__u64(j, w->start);
	json__u64(j, w->end);
	json__arr_end(j);
}

int ep_io_statistics(struct request *rq)
{
	static const enum op ops[] = { OP_READ, OP_WRITE, OP_FSYNC, OP_FDATASYNC, OP_IO_URING };
	struct viewer_state *st = rq->st;
	struct op_sel sel[OP_MAX] = { 0 };
	uint64_t max_points, total_ops, total_bytes, all = 0;
	struct io_files files = { 0 };
	int nsel = 0;
	struct window w;
	int status, err;

	if ((status = api__window(rq, &w)) || (status = api__max_points(rq, &max_points)))
		return status;
	/* all_syscalls=1: every syscall (a syscall table, the compare view's), I/O or not. */
	if (params__u64(&rq->p, "all_syscalls", false, 1, &all, NULL))
		return api__bad_param(rq);
	/* The 0.1 viewer API's five, then the other syscalls that do I/O (and --probe
	 * functions, timed the same way). */
	for (int op = 0; op < 5 + st->ops.nops - OP__COUNT; op++) {
		int o = op < 5 ? (int)ops[op] : OP__COUNT + op - 5;
		const char *name = ops__name(&st->ops, o);

		if (o >= OP__COUNT && !all && !syscall__is_io(name) && strncmp(name, "probe_", 6))
			continue;
		if ((err = op_sel__build(&sel[nsel++], &st->m, &st->ops, o, &w, SEL_SIZES | SEL_RET))) {
			status = sel_status(rq, &sel[nsel - 1], err);
			goto cleanup;
		}
	}
	if ((status = io_files__read(rq, &w, &files)))
		goto cleanup;
	status = 200;
	json__obj_begin(&rq->out);
	by_operation(rq, sel, nsel, max_points, &w, &files, &total_ops, &total_bytes);
	json__key(&rq->out, "total_ops");
	json__u64(&rq->out, total_ops);
	json__key(&rq->out, "total_bytes");
	json__u64(&rq->out, total_bytes);
	time_range(&rq->out, &w);
	exact_json__note(&rq->out, &rq->st->exact, &rq->st->m, &w);
	json__obj_end(&rq->out);
cleanup:
	for (int i = 0; i < nsel; i++)
		op_sel__free(&sel[i]);
	io_files__free(&files);
	return status;
}

struct usage_point {
	uint64_t ts;
	int64_t bytes;
};

/* The cumulative mmap/munmap/brk timeline of the window: precomputed records of pids that
 * need no recomputation, merged in (ts, row) order with the recomputed ones. */
static int usage_points(const struct ops *o, const struct op_sel *sels, const struct window *w,
			struct usage_point **out, uint64_t *n)
{
	const struct mem_timeline *t = &o->mem;
	struct op_rec *dirty = NULL;
	uint64_t nd = 0, d = 0, k = 0;
	int64_t run = 0;

	for (int i = 0; i < 3; i++)
		nd += sels[i].ndirty;
	*out = malloc((t->n + nd + 1) * sizeof(**out));
	dirty = malloc((nd + 1) * sizeof(*dirty));
	if (!*out || !dirty) {
		free(dirty);
		return -ENOMEM;
	}
	nd = 0;
	for (int i = 0; i < 3; i++)
		for (uint64_t x = 0; x < sels[i].ndirty; x++)
			dirty[nd++] = sels[i].dirty[x];
	/* By (end, rn): insertion into place is fine, recomputed records are few. */
	for (uint64_t i = 1; i < nd; i++) {
		struct op_rec r = dirty[i];
		uint64_t j = i;

		while (j > 0 && (dirty[j - 1].end > r.end || (dirty[j - 1].end == r.end && dirty[j - 1].rn > r.rn))) {
			dirty[j] = dirty[j - 1];
			j--;
		}
		dirty[j] = r;
	}
	for (uint64_t i = 0; i < t->n; i++) {
		const struct op_sel *s = &sels[t->op[i] == OP_MMAP ? 0 : t->op[i] == OP_MUNMAP ? 1 : 2];

		if (t->start[i] < w->start || t->end[i] > w->end || !window__takes(sels[0].m, w, t->pid[i]) ||
		    (s->ndirty_pids && op_sel__is_dirty(s, t->pid[i])))
			continue;
		while (d < nd && (dirty[d].end < t->end[i] || (dirty[d].end == t->end[i] && dirty[d].rn < t->rn[i]))) {
			run = (int64_t)((uint64_t)run + (uint64_t)dirty[d].delta);
			(*out)[k++] = (struct usage_point){ dirty[d++].end, run };
		}
		run = (int64_t)((uint64_t)run + (uint64_t)t->delta[i]);
		(*out)[k++] = (struct usage_point){ t->end[i], run };
	}
	while (d < nd) {
		run = (int64_t)((uint64_t)run + (uint64_t)dirty[d].delta);
		(*out)[k++] = (struct usage_point){ dirty[d++].end, run };
	}
	free(dirty);
	*n = k;
	return 0;
}

static void usage_point(struct json *j, const struct usage_point *p)
{
	json__obj_begin(j);
	json__key(j, "ts_ns");
	json__u64(j, p->ts);
	json__key(j, "cumulative_bytes");
	json__i64(j, p->bytes);
	json__obj_end(j);
}

/* Every point (as in the 0.1 viewer API), or at most max_points: per slice of the series
 * its lowest and highest point, in time order, so peaks survive. */
static void write_usage(struct json *j, const struct usage_point *p, uint64_t n, uint64_t max_points)
{
	json__arr_begin(j);
	if (!max_points || n <= max_points) {
		for (uint64_t i = 0; i < n; i++)
			usage_point(j, &p[i]);
	} else if (max_points < 2) {
		usage_point(j, &p[n - 1]);
	} else {
		uint64_t slices = max_points / 2;

		for (uint64_t s = 0; s < slices; s++) {
			uint64_t a = n * s / slices, b = n * (s + 1) / slices, lo = a, hi = a;

			for (uint64_t i = a; i < b; i++) {
				if (p[i].bytes < p[lo].bytes)
					lo = i;
				if (p[i].bytes > p[hi].bytes)
					hi = i;
			}
			usage_point(j, &p[lo < hi ? lo : hi]);
			if (lo != hi)
				usage_point(j, &p[lo < hi ? hi : lo]);
		}
	}
	json__arr_end(j);
}

int ep_memory_statistics(struct request *rq)
{
	static const enum op ops[] = { OP_MMAP, OP_MUNMAP, OP_BRK };
	struct viewer_state *st = rq->st;
	struct op_sel sel[3] = { 0 };
	uint64_t max_points, total_ops, total_bytes, grow_ops = 0, grow = 0, shrink_ops = 0,
		 shrink = 0, mmap_bytes = 0, munmap_bytes = 0, npoints = 0;
	struct usage_point *points = NULL;
	struct window w;
	int status, err;

	if ((status = api__window(rq, &w)) || (status = api__max_points(rq, &max_points)))
		return status;
	for (int i = 0; i < 3; i++) {
		if ((err = op_sel__build(&sel[i], &st->m, &st->ops, ops[i], &w, SEL_SIZES | SEL_RET))) {
			status = sel_status(rq, &sel[i], err);
			goto cleanup;
		}
	}
	if (usage_points(&st->ops, sel, &w, &points, &npoints)) {
		status = api__fail(rq, 500, "out of memory");
		goto cleanup;
	}
	for (uint64_t k = 0; k < sel[2].n; k++) {
		if (op_sel__delta(&sel[2], k) > 0) {
			grow_ops++;
			grow += op_sel__bytes(&sel[2], k);
		} else {
			shrink_ops++;
			shrink += op_sel__bytes(&sel[2], k);
		}
	}
	mmap_bytes = op_sel__bytes_sum(&sel[0]);
	munmap_bytes = op_sel__bytes_sum(&sel[1]);
	status = 200;
	json__obj_begin(&rq->out);
	by_operation(rq, sel, 3, max_points, NULL, NULL, &total_ops, &total_bytes);
	json__key(&rq->out, "total_alloc_ops");
	json__u64(&rq->out, sel[0].n + grow_ops);
	json__key(&rq->out, "total_alloc_bytes");
	json__u64(&rq->out, mmap_bytes + grow);
	json__key(&rq->out, "total_free_ops");
	json__u64(&rq->out, sel[1].n + shrink_ops);
	json__key(&rq->out, "total_free_bytes");
	json__u64(&rq->out, munmap_bytes + shrink);
	json__key(&rq->out, "cumulative_usage");
	write_usage(&rq->out, points, npoints, max_points);
	time_range(&rq->out, &w);
	json__obj_end(&rq->out);
cleanup:
	free(points);
	for (int i = 0; i < 3; i++)
		op_sel__free(&sel[i]);
	return status;
}
