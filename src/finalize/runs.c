#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "finalize/runs.h"

/* A spilled run: nrows rowrefs at byte offset start of the spill file. */
struct run {
	uint64_t start, nrows;
};

/* A run being read back: a window of it in buf. */
struct src {
	uint64_t next, end;		/* file offsets still to read */
	struct rowref *buf;
	uint32_t n, i, cap;
};

struct merger {
	struct src *src;
	uint32_t *heap;			/* source indexes, a binary min-heap on (ts, index) */
	uint32_t k, live;
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

static int io_all(int fd, void *p, size_t n, uint64_t off, bool wr)
{
	char *c = p;

	while (n) {
		ssize_t k = wr ? pwrite(fd, c, n, (off_t)off) : pread(fd, c, n, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		c += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
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
	r->cur = malloc(r->run_rows * sizeof(*r->cur));
	if (!r->path || !r->cur) {
		runs__free(r);
		return -ENOMEM;
	}
	*rp = r;
	return 0;
}

static void merger__free(struct merger *m)
{
	for (uint32_t i = 0; m->src && i < m->k; i++)
		free(m->src[i].buf);
	free(m->src);
	free(m->heap);
	memset(m, 0, sizeof(*m));
}

void runs__free(struct runs *r)
{
	if (!r)
		return;
	merger__free(&r->m);
	if (r->fd >= 0)
		close(r->fd);
	free(r->cur);
	free(r->tmp);
	free(r->runs);
	free(r->path);
	free(r);
}

/* LSD radix sort on ts, 16 bits a pass, skipping digits no key differs in (a trace spans
 * seconds: about 36 varying bits, 3 passes); stable, so equal times keep arrival order.
 * Already-sorted input costs one scan. */
static int sort_run(struct runs *r)
{
	struct rowref *src = r->cur, *dst, *t;
	uint64_t diff = 0, n = r->ncur, *count;
	bool sorted = true;

	for (uint64_t i = 1; i < n; i++) {
		diff |= src[i].ts ^ src[0].ts;
		sorted &= src[i].ts >= src[i - 1].ts;
	}
	if (sorted)
		return 0;
	if (!r->tmp && !(r->tmp = malloc(r->run_rows * sizeof(*r->tmp))))
		return -ENOMEM;
	count = malloc((65536 + 1) * sizeof(*count));
	if (!count)
		return -ENOMEM;
	dst = r->tmp;
	for (int shift = 0; shift < 64; shift += 16) {
		if (!((diff >> shift) & 0xffff))
			continue;
		memset(count, 0, (65536 + 1) * sizeof(*count));
		for (uint64_t i = 0; i < n; i++)
			count[((src[i].ts >> shift) & 0xffff) + 1]++;
		for (int b = 0; b < 65536; b++)
			count[b + 1] += count[b];
		for (uint64_t i = 0; i < n; i++)
			dst[count[(src[i].ts >> shift) & 0xffff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	/* The sorted rows may have ended in the scratch: swap roles instead of copying. */
	if (src != r->cur) {
		r->tmp = r->cur;
		r->cur = src;
	}
	free(count);
	return 0;
}

static int push_run(struct runs *r, uint64_t start, uint64_t nrows)
{
	if (r->nruns == r->runs_cap) {
		uint32_t cap = r->runs_cap ? r->runs_cap * 2 : 16;
		struct run *n = realloc(r->runs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->runs = n;
		r->runs_cap = cap;
	}
	r->runs[r->nruns++] = (struct run){ start, nrows };
	return 0;
}

static int spill(struct runs *r)
{
	size_t bytes = r->ncur * sizeof(*r->cur);
	int err;

	if (r->fd < 0 && (r->fd = spill__create(r->path)) < 0) {
		err = r->fd;
		r->fd = -1;
		return err;
	}
	err = sort_run(r);
	if (!err)
		err = io_all(r->fd, r->cur, bytes, r->file_end, true);
	if (!err)
		err = push_run(r, r->file_end, r->ncur);
	if (err)
		return err;
	r->file_end += bytes;
	r->spilled++;
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
	uint64_t ta = m->src[a].buf[m->src[a].i].ts, tb = m->src[b].buf[m->src[b].i].ts;

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

/* Refill a source's window; 0 with n == 0 at the run's end. */
static int src_fill(int fd, struct src *s)
{
	uint64_t left = (s->end - s->next) / sizeof(struct rowref);
	uint32_t n = left < s->cap ? (uint32_t)left : s->cap;
	int err;

	s->i = 0;
	s->n = n;
	if (!n)
		return 0;
	err = io_all(fd, s->buf, n * sizeof(struct rowref), s->next, false);
	s->next += n * sizeof(struct rowref);
	return err;
}

/* Merge runs[first .. first + k), which are in arrival order. */
static int merger__init(struct merger *m, struct runs *r, uint32_t first, uint32_t k)
{
	uint32_t per = RUNS_MERGE_BYTES / k < (1u << 20) ? RUNS_MERGE_BYTES / k : (1u << 20);
	uint32_t cap = per / sizeof(struct rowref);
	int err = 0;

	m->k = k;
	m->src = calloc(k, sizeof(*m->src));
	m->heap = calloc(k, sizeof(*m->heap));
	if (!m->src || !m->heap)
		return -ENOMEM;
	for (uint32_t i = 0; i < k && !err; i++) {
		struct src *s = &m->src[i];

		s->next = r->runs[first + i].start;
		s->end = s->next + r->runs[first + i].nrows * sizeof(struct rowref);
		s->cap = cap;
		s->buf = malloc(cap * sizeof(*s->buf));
		err = s->buf ? src_fill(r->fd, s) : -ENOMEM;
		if (!err && s->n)
			m->heap[m->live++] = i;
	}
	for (uint32_t i = m->live / 2; i-- > 0;)
		sift_down(m, i);
	return err;
}

static int merger__next(struct merger *m, int fd, struct rowref *out)
{
	struct src *s;
	int err;

	if (!m->live)
		return 0;
	s = &m->src[m->heap[0]];
	*out = s->buf[s->i++];
	if (s->i == s->n) {
		err = src_fill(fd, s);
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
	const uint32_t cap = (RUNS_MERGE_BYTES / 4) / sizeof(struct rowref);
	struct rowref *buf = malloc(cap * sizeof(*buf));
	uint32_t n = 0;
	int got, err;

	*out = (struct run){ r->file_end, 0 };
	err = buf ? merger__init(&m, r, first, k) : -ENOMEM;
	while (!err && (got = merger__next(&m, r->fd, &buf[n])) > 0) {
		if (++n == cap) {
			err = io_all(r->fd, buf, n * sizeof(*buf), r->file_end, true);
			r->file_end += n * sizeof(*buf);
			out->nrows += n;
			n = 0;
		}
	}
	if (!err && got < 0)
		err = got;
	if (!err && n) {
		err = io_all(r->fd, buf, n * sizeof(*buf), r->file_end, true);
		r->file_end += n * sizeof(*buf);
		out->nrows += n;
	}
	merger__free(&m);
	free(buf);
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

	if (!r->nruns) {
		err = sort_run(r);
		free(r->tmp);
		r->tmp = NULL;
		return err;
	}
	err = r->ncur ? spill(r) : 0;
	free(r->cur);
	free(r->tmp);
	r->cur = r->tmp = NULL;
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
		return merger__next(&r->m, r->fd, out);
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
