#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bigmem.h"
#include "finalize/runfile.h"
#include "finalize/runs.h"

/* A spilled run: bytes [start, end) of the spill file (finalize/runfile.h). */
struct run {
	uint64_t start, end;
};

struct merger {
	struct run_reader *src;
	uint32_t *heap;			/* source indexes, a binary min-heap on (ts, index) */
	uint32_t k, live;
};

struct spiller {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool tried, started, busy, quit;
	struct rowref *buf, *tmp;	/* the run being written, its sort scratch */
	uint64_t n;
	int err;
};

struct runs {
	char *path;
	int fd;
	uint64_t run_rows, rows, file_end;
	struct rowref *cur, *tmp;	/* the run being gathered, the sort's scratch */
	uint64_t ncur, pos;		/* rows in cur; next row handed out (in memory) */
	struct run *runs;
	uint32_t nruns, runs_cap, spilled;
	struct merger m;
	bool merging;
	struct spiller sp;
};

/* The one place the spill file is made (see runs__new: it never outlives the process). */
static int spill__create(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

int runs__new(struct runs **rp, const char *spill_path, uint64_t run_rows)
{
	struct runs *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->fd = -1;
	r->run_rows = run_rows ? run_rows : RUNS_DEFAULT_ROWS;
	if (r->run_rows < RUNS_MIN_ROWS)
		r->run_rows = RUNS_MIN_ROWS;
	r->path = strdup(spill_path);
	/* Allocated, not touched: a small trace faults in only what it uses. */
	r->cur = bigmem__alloc_sparse(r->run_rows * sizeof(*r->cur));
	if (!r->path || !r->cur) {
		runs__free(r);
		return -ENOMEM;
	}
	*rp = r;
	return 0;
}

static void spiller__stop(struct spiller *sp);

static void merger__free(struct merger *m)
{
	for (uint32_t i = 0; m->src && i < m->k; i++)
		run_reader__free(&m->src[i]);
	free(m->src);
	free(m->heap);
	memset(m, 0, sizeof(*m));
}

void runs__free(struct runs *r)
{
	if (!r)
		return;
	spiller__stop(&r->sp);
	free(r->sp.buf);
	free(r->sp.tmp);
	merger__free(&r->m);
	if (r->fd >= 0)
		close(r->fd);
	free(r->cur);
	free(r->tmp);
	free(r->runs);
	free(r->path);
	free(r);
}

/* Runs shorter than this are sorted with 8-bit digits and a scratch of their own size:
 * 65 536 counters a pass and a scratch of a whole run cost more than they save there
 * (a short trace's only run). */
#define SHORT_RUN_ROWS 65536

/* LSD radix sort on ts, `bits` bits a pass, skipping digits no key differs in (a trace
 * spans seconds: about 36 varying bits); stable, so equal times keep arrival order.
 * count holds 2^bits + 1 counters.  Returns the buffer the sorted rows ended in. */
static struct rowref *radix(struct rowref *src, struct rowref *dst, uint64_t n, uint64_t diff,
			    int bits, uint64_t *count)
{
	uint64_t mask = (1ull << bits) - 1;
	struct rowref *t;

	for (int shift = 0; shift < 64; shift += bits) {
		if (!((diff >> shift) & mask))
			continue;
		memset(count, 0, (mask + 2) * sizeof(*count));
		for (uint64_t i = 0; i < n; i++)
			count[((src[i].ts >> shift) & mask) + 1]++;
		for (uint64_t b = 0; b <= mask; b++)
			count[b + 1] += count[b];
		for (uint64_t i = 0; i < n; i++)
			dst[count[(src[i].ts >> shift) & mask]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	return src;
}

/* Sorts (*a)[0..n).  Already-sorted input costs one scan.  Long runs may end up sorted
 * in the scratch *tmp (of cap rows): the two buffers then swap roles (*a is always the
 * sorted one). */
static int sort_refs(struct rowref **a, struct rowref **tmp, uint64_t n, uint64_t cap)
{
	struct rowref *src = *a, *sorted_in;
	uint64_t diff = 0, small[256 + 1], *count;
	bool sorted = true;

	for (uint64_t i = 1; i < n; i++) {
		diff |= src[i].ts ^ src[0].ts;
		sorted &= src[i].ts >= src[i - 1].ts;
	}
	if (sorted)
		return 0;
	if (n < SHORT_RUN_ROWS) {
		struct rowref *scratch = malloc(n * sizeof(*scratch));

		if (!scratch)
			return -ENOMEM;
		sorted_in = radix(src, scratch, n, diff, 8, small);
		if (sorted_in != src)
			memcpy(src, sorted_in, n * sizeof(*src));
		free(scratch);
		return 0;
	}
	if (!*tmp && !(*tmp = bigmem__alloc(cap * sizeof(**tmp))))
		return -ENOMEM;
	count = malloc((65536 + 1) * sizeof(*count));
	if (!count)
		return -ENOMEM;
	sorted_in = radix(src, *tmp, n, diff, 16, count);
	if (sorted_in != *a) {
		*tmp = *a;
		*a = sorted_in;
	}
	free(count);
	return 0;
}

static int push_run(struct runs *r, uint64_t start, uint64_t end)
{
	if (r->nruns == r->runs_cap) {
		uint32_t cap = r->runs_cap ? r->runs_cap * 2 : 16;
		struct run *n = realloc(r->runs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->runs = n;
		r->runs_cap = cap;
	}
	r->runs[r->nruns++] = (struct run){ start, end };
	return 0;
}

/* Sort buf and append it to the spill file as the next run. */
static int write_run(struct runs *r, struct rowref **buf, struct rowref **tmp, uint64_t n)
{
	struct run_writer w;
	uint64_t end;
	int err;

	err = sort_refs(buf, tmp, n, r->run_rows);
	if (!err)
		err = run_writer__begin(&w, r->fd, r->file_end);
	if (err)
		return err;
	for (uint64_t i = 0; i < n && !err; i++)
		err = run_writer__add(&w, &(*buf)[i]);
	err = run_writer__end(&w, &end) ?: err;
	if (!err)
		err = push_run(r, r->file_end, end);
	if (err)
		return err;
	r->file_end = end;
	r->spilled++;
	return 0;
}

/* The spiller thread sorts and writes one full run while the caller gathers the next:
 * the second core's share of the gathering pass. */
static void *spiller__run(void *arg)
{
	struct runs *r = arg;
	struct spiller *sp = &r->sp;

	pthread_mutex_lock(&sp->mu);
	for (;;) {
		while (!sp->busy && !sp->quit)
			pthread_cond_wait(&sp->cv, &sp->mu);
		if (!sp->busy)
			break;
		pthread_mutex_unlock(&sp->mu);
		int err = sp->err ? sp->err : write_run(r, &sp->buf, &sp->tmp, sp->n);
		pthread_mutex_lock(&sp->mu);
		sp->err = err;
		sp->busy = false;
		pthread_cond_broadcast(&sp->cv);
	}
	pthread_mutex_unlock(&sp->mu);
	return NULL;
}

/* Wait for the spiller to be idle; its first error. */
static int spiller__wait(struct spiller *sp)
{
	int err;

	if (!sp->started)
		return 0;
	pthread_mutex_lock(&sp->mu);
	while (sp->busy)
		pthread_cond_wait(&sp->cv, &sp->mu);
	err = sp->err;
	pthread_mutex_unlock(&sp->mu);
	return err;
}

static void spiller__stop(struct spiller *sp)
{
	if (!sp->started)
		return;
	pthread_mutex_lock(&sp->mu);
	sp->quit = true;
	pthread_cond_broadcast(&sp->cv);
	pthread_mutex_unlock(&sp->mu);
	pthread_join(sp->thread, NULL);
	sp->started = false;
}

static int open_spill(struct runs *r)
{
	int fd;

	if (r->fd >= 0)
		return 0;
	fd = spill__create(r->path);
	if (fd < 0)
		return fd;
	r->fd = fd;
	return 0;
}

/* Hand the full run to the spiller (or spill it here if no thread can start). */
static int spill(struct runs *r)
{
	struct spiller *sp = &r->sp;
	struct rowref *t;
	int err;

	err = open_spill(r);
	if (!err && !sp->tried) {
		sp->tried = true;
		sp->buf = bigmem__alloc(r->run_rows * sizeof(*sp->buf));
		pthread_mutex_init(&sp->mu, NULL);
		pthread_cond_init(&sp->cv, NULL);
		sp->started = sp->buf && !pthread_create(&sp->thread, NULL, spiller__run, r);
	}
	if (!err)
		err = spiller__wait(sp);
	if (err)
		return err;
	if (!sp->started) {
		err = write_run(r, &r->cur, &r->tmp, r->ncur);
		r->ncur = 0;
		return err;
	}
	t = sp->buf;
	pthread_mutex_lock(&sp->mu);
	sp->buf = r->cur;
	sp->n = r->ncur;
	sp->busy = true;
	pthread_cond_broadcast(&sp->cv);
	pthread_mutex_unlock(&sp->mu);
	r->cur = t;
	r->ncur = 0;
	return 0;
}

int runs__add(struct runs *r, const struct rowref *ref)
{
	int err;

	if (r->ncur == r->run_rows && (err = spill(r)))
		return err;
	r->cur[r->ncur++] = *ref;
	r->rows++;
	return 0;
}

static bool src_less(const struct merger *m, uint32_t a, uint32_t b)
{
	uint64_t ta = m->src[a].rows[m->src[a].i].ts, tb = m->src[b].rows[m->src[b].i].ts;

	return ta < tb || (ta == tb && a < b);
}

static void sift_down(struct merger *m, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, s = i, t;

		if (l < m->live && src_less(m, m->heap[l], m->heap[s]))
			s = l;
		if (l + 1 < m->live && src_less(m, m->heap[l + 1], m->heap[s]))
			s = l + 1;
		if (s == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[s];
		m->heap[s] = t;
		i = s;
	}
}

/* Merge runs[first .. first + k), which are in arrival order. */
static int merger__init(struct merger *m, struct runs *r, uint32_t first, uint32_t k)
{
	int err = 0;

	m->k = k;
	m->src = calloc(k, sizeof(*m->src));
	m->heap = calloc(k, sizeof(*m->heap));
	if (!m->src || !m->heap)
		return -ENOMEM;
	for (uint32_t i = 0; i < k && !err; i++) {
		struct run_reader *s = &m->src[i];

		err = run_reader__init(s, r->fd, r->runs[first + i].start, r->runs[first + i].end);
		if (!err)
			err = run_reader__fill(s);
		if (!err && s->n)
			m->heap[m->live++] = i;
	}
	for (uint32_t i = m->live / 2; i-- > 0;)
		sift_down(m, i);
	return err;
}

static int merger__next(struct merger *m, struct rowref *out)
{
	struct run_reader *s;
	int err;

	if (!m->live)
		return 0;
	s = &m->src[m->heap[0]];
	*out = s->rows[s->i++];
	if (s->i == s->n) {
		err = run_reader__fill(s);
		if (err)
			return err;
		if (!s->n)
			m->heap[0] = m->heap[--m->live];
	}
	sift_down(m, 0);
	return 1;
}

/* Merge runs[first .. first + k) into one run written at the file's end. */
static int merge_group(struct runs *r, uint32_t first, uint32_t k, struct run *out)
{
	struct merger m = { 0 };
	struct run_writer w;
	struct rowref ref;
	int got = 0, err;

	out->start = r->file_end;
	err = run_writer__begin(&w, r->fd, r->file_end);
	if (err)
		return err;
	err = merger__init(&m, r, first, k);
	while (!err && (got = merger__next(&m, &ref)) > 0)
		err = run_writer__add(&w, &ref);
	if (!err && got < 0)
		err = got;
	err = run_writer__end(&w, &out->end) ?: err;
	r->file_end = out->end;
	merger__free(&m);
	return err;
}

/* Merge groups of RUNS_MAX_FANIN runs, in order, until one final merge can take them all. */
static int reduce_runs(struct runs *r)
{
	while (r->nruns > RUNS_MAX_FANIN) {
		uint32_t groups = 0;
		int err;

		for (uint32_t first = 0; first < r->nruns; first += RUNS_MAX_FANIN) {
			uint32_t k = r->nruns - first < RUNS_MAX_FANIN ? r->nruns - first : RUNS_MAX_FANIN;
			struct run out;

			err = merge_group(r, first, k, &out);
			if (err)
				return err;
			r->runs[groups++] = out;	/* groups <= first: never overwrites unread runs */
		}
		r->nruns = groups;
	}
	return 0;
}

int runs__finish(struct runs *r)
{
	int err;

	if (!r->sp.started && !r->nruns) {
		err = sort_refs(&r->cur, &r->tmp, r->ncur, r->run_rows);
		free(r->tmp);
		r->tmp = NULL;
		return err;
	}
	err = spiller__wait(&r->sp);
	spiller__stop(&r->sp);
	if (!err && r->ncur)
		err = write_run(r, &r->cur, &r->tmp, r->ncur);
	free(r->cur);
	free(r->tmp);
	free(r->sp.buf);
	free(r->sp.tmp);
	r->cur = r->tmp = r->sp.buf = r->sp.tmp = NULL;
	if (!err)
		err = reduce_runs(r);
	if (!err)
		err = merger__init(&r->m, r, 0, r->nruns);
	r->merging = true;
	return err;
}

int runs__next(struct runs *r, struct rowref *out)
{
	if (r->merging)
		return merger__next(&r->m, out);
	if (r->pos == r->ncur)
		return 0;
	*out = r->cur[r->pos++];
	return 1;
}

uint64_t runs__rows(const struct runs *r)
{
	return r->rows;
}

uint32_t runs__spilled(const struct runs *r)
{
	return r->spilled;
}
