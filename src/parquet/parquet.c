/* Parquet writer: file layout, row groups, parallel column encoding, I/O.
 *
 *   "PAR1" | row group: column chunk pages ... | FileMetaData | footer length | "PAR1"
 *
 * Each row group's column chunks are encoded in memory (one chunk buffer per column,
 * kept for the next row group), written in schema order, and summarized as a serialized
 * RowGroup struct; close() wraps those in the footer.  So at most one row group's
 * encoded pages are held at a time. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fdio.h"
#include "parquet/parquet.h"
#include "parquet/parquet_int.h"

#define DEFAULT_PAGE_BYTES	(1u << 20)
#define MAX_THREADS		64
#define PARALLEL_MIN_ROWS	16384

struct pq_writer {
	int fd;
	char *path;
	int err;			/* first error; sticky */
	int64_t pos;			/* bytes written so far */
	int ncols;
	struct pq_leaf *leaves;
	struct pq_chunk *chunks;
	struct pq_encode_opts eo;
	int nthreads;
	struct pq_scratch *scratch;	/* one per thread */
	struct pq_buf row_groups;	/* serialized RowGroup structs */
	uint32_t nrg;
	int64_t nrows;
};

int pq_buf__reserve(struct pq_buf *b, size_t extra)
{
	size_t need = b->len + extra, cap = b->cap ? b->cap : 4096;
	uint8_t *p;

	if (need <= b->cap)
		return 0;
	if (need < b->len)
		return -ENOMEM;
	while (cap < need)
		cap = cap + cap / 2 > cap ? cap + cap / 2 : need;
	p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

void pq_buf__free(struct pq_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static int write_all(struct pq_writer *w, const void *p, size_t n)
{
	int err = fdio__write_all(w->fd, p, n);

	if (!err)
		w->pos += n;
	return err;
}
static int fail(struct pq_writer *w, int err)
{
	if (!w->err)
		w->err = err;
	return w->err;
}

static int leaf__init(struct pq_leaf *l, const struct pq_column_def *def)
{
	if (!def->name || !*def->name)
		return -EINVAL;
	l->name = strdup(def->name);
	if (!l->name)
		return -ENOMEM;
	l->type = def->type;
	l->required = def->required;
	l->max_def = def->required ? 0 : 1;
	l->max_rep = 0;
	switch (def->type) {
	case PQ_U8:
	case PQ_U32:
	case PQ_I32:
		l->phys = PT_INT32;
		l->dict = def->dict && def->type == PQ_U32;
		break;
	case PQ_U64:
	case PQ_I64:
		l->phys = PT_INT64;
		l->delta = def->delta;
		break;
	case PQ_BOOL:
		l->phys = PT_BOOLEAN;
		break;
	case PQ_STRING:
		l->phys = PT_BYTE_ARRAY;
		break;
	case PQ_STRING_LIST:
		/* [optional] list group, repeated "list", optional item */
		l->phys = PT_BYTE_ARRAY;
		l->max_def = def->required ? 2 : 3;
		l->max_rep = 1;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

static void writer__free(struct pq_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	for (int i = 0; w->scratch && i < w->nthreads; i++)
		pq_scratch__free(&w->scratch[i]);
	free(w->scratch);
	for (int i = 0; w->chunks && i < w->ncols; i++)
		pq_buf__free(&w->chunks[i].out);
	free(w->chunks);
	for (int i = 0; w->leaves && i < w->ncols; i++)
		free((char *)w->leaves[i].name);
	free(w->leaves);
	pq_buf__free(&w->row_groups);
	free(w->path);
	free(w);
}

int pq_writer__open(struct pq_writer **wp, const char *path, const struct pq_column_def *cols,
		    int ncols, const struct pq_options *opts)
{
	struct pq_writer *w;
	int err = 0;

	*wp = NULL;
	if (!path || !cols || ncols <= 0)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	w->ncols = ncols;
	w->eo.zstd_level = opts && opts->zstd_level ? opts->zstd_level : 1;
	w->eo.page_bytes = opts && opts->page_bytes ? opts->page_bytes : DEFAULT_PAGE_BYTES;
	if (w->eo.page_bytes < 64)
		w->eo.page_bytes = 64;
	w->nthreads = opts && opts->threads > 0 ? opts->threads : 1;
	if (w->nthreads > ncols)
		w->nthreads = ncols;
	if (w->nthreads > MAX_THREADS)
		w->nthreads = MAX_THREADS;

	w->path = strdup(path);
	w->leaves = calloc(ncols, sizeof(*w->leaves));
	w->chunks = calloc(ncols, sizeof(*w->chunks));
	w->scratch = calloc(w->nthreads, sizeof(*w->scratch));
	if (!w->path || !w->leaves || !w->chunks || !w->scratch) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (int i = 0; i < ncols && !err; i++)
		err = leaf__init(&w->leaves[i], &cols[i]);
	for (int i = 0; i < w->nthreads && !err; i++)
		err = pq_scratch__init(&w->scratch[i]);
	if (err)
		goto cleanup;

	/* Exclusive and not through a symlink: the writer unlinks the file on failure, which
	 * is only right for a file it created. */
	w->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		err = -errno;
		goto cleanup;
	}
	err = write_all(w, "PAR1", 4);
	if (err) {
		unlink(w->path);
		goto cleanup;
	}
	*wp = w;
	return 0;

cleanup:
	writer__free(w);
	return err;
}

static int check_columns(struct pq_writer *w, const struct pq_column_data *cols)
{
	for (int i = 0; i < w->ncols; i++) {
		const struct pq_leaf *l = &w->leaves[i];
		const struct pq_column_data *d = &cols[i];

		if (!d->values || (l->required && d->valid))
			return -EINVAL;
		if ((l->type == PQ_STRING || l->type == PQ_STRING_LIST) &&
		    (!d->dict || (d->dict->n && (!d->dict->strs || !d->dict->lens))))
			return -EINVAL;
		if (l->type == PQ_STRING_LIST &&
		    (!d->lists || (d->lists->n && (!d->lists->offsets || !d->lists->items))))
			return -EINVAL;
	}
	return 0;
}

struct encode_job {
	struct pq_writer *w;
	uint32_t nrows;
	const struct pq_column_data *cols;
	atomic_int next;		/* next column to take */
	atomic_int err;
};

struct encode_worker {
	struct encode_job *job;
	struct pq_scratch *s;
};

static void *encode_worker__run(void *arg)
{
	struct encode_worker *wk = arg;
	struct encode_job *j = wk->job;
	struct pq_writer *w = j->w;
	int c, err;

	while (!atomic_load(&j->err) && (c = atomic_fetch_add(&j->next, 1)) < w->ncols) {
		err = pq_column__encode(wk->s, &w->eo, &w->leaves[c], j->nrows, &j->cols[c],
					&w->chunks[c]);
		if (err) {
			int none = 0;

			atomic_compare_exchange_strong(&j->err, &none, err);
		}
	}
	return NULL;
}

/* Encode all chunks with nthreads threads (this one included), then write them in order. */
static int encode_parallel(struct pq_writer *w, uint32_t nrows, const struct pq_column_data *cols)
{
	struct encode_job job = { .w = w, .nrows = nrows, .cols = cols };
	struct encode_worker wk[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	int started = 0, err;

	for (int i = 0; i < w->nthreads; i++)
		wk[i] = (struct encode_worker){ &job, &w->scratch[i] };
	/* if a thread cannot start, the others (at least this one) do its share */
	for (int i = 1; i < w->nthreads; i++) {
		if (pthread_create(&tid[started], NULL, encode_worker__run, &wk[i]))
			break;
		started++;
	}
	encode_worker__run(&wk[0]);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	err = atomic_load(&job.err);
	for (int c = 0; c < w->ncols && !err; c++) {
		w->chunks[c].offset = w->pos;
		err = write_all(w, w->chunks[c].out.p, w->chunks[c].out.len);
	}
	return err;
}

int pq_writer__write_row_group(struct pq_writer *w, uint32_t nrows,
			       const struct pq_column_data *cols)
{
	int err;

	if (!w)
		return -EINVAL;
	if (w->err)
		return w->err;
	if (!nrows)
		return 0;
	err = cols ? check_columns(w, cols) : -EINVAL;
	if (err)
		return fail(w, err);
	/* A small row group is encoded here: threads would cost more than they share (their
	 * start, and each thread's malloc arena, all fresh pages). */
	if (w->nthreads > 1 && nrows >= PARALLEL_MIN_ROWS) {
		err = encode_parallel(w, nrows, cols);
	} else {
		/* write each chunk while its bytes are still in cache */
		for (int c = 0; c < w->ncols && !err; c++) {
			err = pq_column__encode(&w->scratch[0], &w->eo, &w->leaves[c], nrows,
						&cols[c], &w->chunks[c]);
			w->chunks[c].offset = w->pos;
			if (!err)
				err = write_all(w, w->chunks[c].out.p, w->chunks[c].out.len);
		}
	}
	if (!err)
		err = pq_thrift__row_group(&w->row_groups, w->leaves, w->ncols, w->chunks, nrows,
					   (int)w->nrg);
	if (err)
		return fail(w, err);
	w->nrg++;
	w->nrows += nrows;
	return 0;
}

void pq_writer__abort(struct pq_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0) {
		close(w->fd);
		w->fd = -1;
		unlink(w->path);
	}
	writer__free(w);
}

/* The caller's pairs and ARROW:schema, as arrow-rs writes it for the same columns (a
 * caller's own ARROW:schema, e.g. copied from another file, is dropped).  *nall: how many. */
static int with_arrow_schema(const struct pq_writer *w, const struct pq_kv *kv, int nkv,
			     struct pq_kv **all, int *nall, char **schema)
{
	struct pq_column_def *cols = calloc((size_t)w->ncols + 1, sizeof(*cols));

	*all = calloc((size_t)nkv + 1, sizeof(**all));
	*schema = NULL;
	if (cols && *all) {
		for (int i = 0; i < w->ncols; i++)
			cols[i] = (struct pq_column_def){ .name = w->leaves[i].name,
							  .type = w->leaves[i].type,
							  .required = w->leaves[i].required };
		*schema = pq_arrow_schema__base64(cols, w->ncols);
	}
	free(cols);
	if (!*schema)
		return -ENOMEM;
	*nall = 0;
	for (int i = 0; i < nkv; i++) {
		if (!kv[i].key)
			return -EINVAL;
		if (strcmp(kv[i].key, PQ_ARROW_SCHEMA_KEY))
			(*all)[(*nall)++] = kv[i];
	}
	(*all)[(*nall)++] = (struct pq_kv){ PQ_ARROW_SCHEMA_KEY, *schema };
	return 0;
}

int pq_writer__close(struct pq_writer *w, const struct pq_kv *kv, int nkv)
{
	struct pq_buf meta = { 0 };
	struct pq_kv *all = NULL;
	char *schema = NULL;
	uint32_t len;
	int err, nall = 0;

	if (!w)
		return -EINVAL;
	err = w->err;
	if (nkv < 0 || (nkv > 0 && !kv))
		err = -EINVAL;
	if (!err)
		err = with_arrow_schema(w, kv, nkv, &all, &nall, &schema);
	if (!err)
		err = pq_thrift__file_meta(&meta, w->leaves, w->ncols, w->nrows, &w->row_groups,
					   w->nrg, all, nall, "probex " PROBEX_VERSION);
	free(all);
	free(schema);
	if (!err && meta.len > UINT32_MAX)
		err = -E2BIG;
	len = (uint32_t)meta.len;
	if (!err)
		err = pq_buf__reserve(&meta, 8);
	if (!err) {
		memcpy(meta.p + meta.len, &len, 4);
		memcpy(meta.p + meta.len + 4, "PAR1", 4);
		meta.len += 8;
		err = write_all(w, meta.p, meta.len);
	}
	if (!err && fsync(w->fd))
		err = -errno;
	if (close(w->fd) && !err)
		err = -errno;
	w->fd = -1;
	if (err)
		unlink(w->path);
	pq_buf__free(&meta);
	writer__free(w);
	return err;
}
