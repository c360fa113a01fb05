/* The spool's readers: a stream (spool_reader), a whole-file mapping walked in order
 * (spool_map, with the index a clean close wrote) and random reads by offset
 * (spool_blocks).  The writer is in spool_writer.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spool/spool.h"
#include "spool/spool_item.h"

struct spool_reader {
	FILE *f;
	unsigned char *buf;
	size_t cap;
};

int spool_reader__open(struct spool_reader **rp, const char *path)
{
	struct spool_reader *r;
	char head[16];
	int err;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->f = fopen(path, "rbe");
	if (!r->f) {
		err = -errno;
		free(r);
		return err;
	}
	setvbuf(r->f, NULL, _IOFBF, 1 << 20);
	if (fread(head, 1, sizeof(head), r->f) != sizeof(head) || memcmp(head, SPOOL_MAGIC, 8)) {
		spool_reader__close(r);
		return -EBADMSG;
	}
	if (head[8] != SPOOL_VERSION) {
		spool_reader__close(r);
		return -EPROTO;
	}
	*rp = r;
	return 0;
}

int spool_reader__next(struct spool_reader *r, struct spool_item *it)
{
	struct item_hdr h;
	size_t n, padded;

	n = fread(&h, 1, sizeof(h), r->f);
	if (n == 0)
		return ferror(r->f) ? -EIO : 0;
	if (n != sizeof(h) || h.len > (64u << 20) || !h.tag)
		return -EBADMSG;
	padded = (h.len + 7u) & ~7u;
	if (padded > r->cap) {
		unsigned char *nb = realloc(r->buf, padded);

		if (!nb)
			return -ENOMEM;
		r->buf = nb;
		r->cap = padded;
	}
	if (fread(r->buf, 1, padded, r->f) != padded)
		return ferror(r->f) ? -EIO : -EBADMSG;
	it->tag = h.tag;
	it->len = h.len;
	it->data = r->buf;
	return 1;
}

void spool_reader__close(struct spool_reader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	free(r->buf);
	free(r);
}

int spool_map__open(struct spool_map *m, const char *path)
{
	struct stat st;
	int fd, err = 0;

	memset(m, 0, sizeof(*m));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto cleanup;
	}
	if (st.st_size < 16) {
		err = -EBADMSG;
		goto cleanup;
	}
	m->base = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		err = -errno;
		goto cleanup;
	}
	m->size = st.st_size;
	madvise((void *)m->base, m->size, MADV_SEQUENTIAL);
	if (memcmp(m->base, SPOOL_MAGIC, 8)) {
		err = -EBADMSG;
		spool_map__close(m);
	} else if (m->base[8] != SPOOL_VERSION) {
		err = -EPROTO;
		spool_map__close(m);
	} else if (m->base[SPOOL_HDR_RING] == 1) {
		memcpy(&m->seg, m->base + SPOOL_HDR_SEG, 4);
		if (m->seg < 4096 || m->seg % 8) {
			err = -EBADMSG;
			spool_map__close(m);
		}
	}
	m->off = 16;
cleanup:
	close(fd);
	return err;
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/* Map the pages ahead of the cursor in one call (best effort: before Linux 5.14 they
 * fault in one by one as before). */
static void populate_ahead(struct spool_map *m)
{
	size_t from, len;

	if (m->off + sizeof(struct item_hdr) <= m->populated || m->populated >= m->size)
		return;
	from = m->off & ~((size_t)4095);
	len = m->size - from < SPOOL_MAP_AHEAD ? m->size - from : SPOOL_MAP_AHEAD;
	madvise((void *)(m->base + from), len, MADV_POPULATE_READ);
	m->populated = from + len;
}

int spool_map__next(struct spool_map *m, struct spool_item *it)
{
	struct item_hdr h;
	size_t padded;

	for (;;) {
		populate_ahead(m);
		if (m->off == m->size)
			return 0;
		if (m->size - m->off < sizeof(h))
			return m->seg ? 0 : -EBADMSG;
		memcpy(&h, m->base + m->off, sizeof(h));
		if (!m->seg || h.tag || h.len)
			break;
		/* Ring mode: the rest of this segment is padding or a punched hole. */
		m->off = (m->off / m->seg + 1) * m->seg;
		if (m->off >= m->size) {
			m->off = m->size;
			return 0;
		}
	}
	padded = (h.len + 7u) & ~7u;
	if (!h.tag || h.len > (64u << 20) || m->size - m->off - sizeof(h) < padded)
		return -EBADMSG;
	it->tag = h.tag;
	it->len = h.len;
	it->data = m->base + m->off + sizeof(h);
	it->off = m->off;
	m->off += sizeof(h) + padded;
	if (m->off - m->trimmed >= SPOOL_MAP_TRIM) {
		/* Read-only private file pages: dropping them only costs a re-read from the
		 * page cache if the caller looks back. */
		size_t end = m->off & ~((size_t)SPOOL_MAP_TRIM - 1);

		madvise((void *)(m->base + m->trimmed), end - m->trimmed, MADV_DONTNEED);
		m->trimmed = end;
	}
	return 1;
}

int spool_map__item_at(const struct spool_map *m, uint64_t off, struct spool_item *item)
{
	struct item_hdr h;

	if (off < 16 || off % 8 || off > m->size - sizeof(h))
		return -EBADMSG;
	memcpy(&h, m->base + off, sizeof(h));
	if (h.len > m->size - off - sizeof(h))
		return -EBADMSG;
	*item = (struct spool_item){ .tag = h.tag, .len = h.len, .data = m->base + off + sizeof(h),
				     .off = off };
	return 1;
}

void spool_map__index(const struct spool_map *m, const uint64_t **offs, size_t *n)
{
	struct spool_item it;
	uint64_t self;

	*offs = NULL;
	*n = 0;
	if (m->seg || m->size < 16 + sizeof(struct item_hdr) + 16 ||
	    memcmp(m->base + m->size - 8, SPOOL_INDEX_MAGIC, 8))
		return;
	memcpy(&self, m->base + m->size - 16, 8);
	if (spool_map__item_at(m, self, &it) != 1 || it.tag != SPOOL_INDEX || it.len < 16 ||
	    self + sizeof(struct item_hdr) + it.len != m->size || it.len % 8)
		return;
	/* Every entry must name a whole item before the index, in ascending order; else the
	 * index is not trusted at all (the reader scans: nothing is lost). */
	for (size_t i = 0, cnt = it.len / 8 - 2; i < cnt; i++) {
		struct spool_item e;
		uint64_t off, prev = 0;

		memcpy(&off, (const unsigned char *)it.data + 8 * i, 8);
		if (i)
			memcpy(&prev, (const unsigned char *)it.data + 8 * (i - 1), 8);
		if ((i && off <= prev) || spool_map__item_at(m, off, &e) != 1 ||
		    off + sizeof(struct item_hdr) + e.len > self || !e.tag || e.tag == SPOOL_INDEX ||
		    e.tag > SPOOL_PYCODE)
			return;
	}
	*offs = it.data;	/* 8-aligned: items are, in a page-aligned mapping */
	*n = it.len / 8 - 2;
}

void spool_map__rewind(struct spool_map *m)
{
	if (m->trimmed < m->size)
		madvise((void *)(m->base + m->trimmed), m->size - m->trimmed, MADV_DONTNEED);
	m->off = 16;
	m->trimmed = 0;
	m->populated = 0;
}

void spool_map__close(struct spool_map *m)
{
	if (m->base)
		munmap((void *)m->base, m->size);
	memset(m, 0, sizeof(*m));
}

struct spool_blocks {
	int fd;
	uint64_t size;
	const unsigned char *base;	/* the whole file, read-only */
	uint64_t win[SPOOL_WINDOWS];	/* window number + 1 resident in each slot, 0 = none */
	uint64_t used[SPOOL_WINDOWS];	/* clock of the last read in it */
	uint64_t clock;
};

int spool_blocks__open(struct spool_blocks **bp, const char *path)
{
	struct spool_blocks *b = calloc(1, sizeof(*b));
	struct stat st;
	int err;

	if (!b)
		return -ENOMEM;
	b->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (b->fd < 0) {
		err = -errno;
		free(b);
		return err;
	}
	if (fstat(b->fd, &st)) {
		err = -errno;
		spool_blocks__close(b);
		return err;
	}
	b->size = st.st_size;
	if (b->size) {
		void *p = mmap(NULL, b->size, PROT_READ, MAP_PRIVATE, b->fd, 0);

		if (p == MAP_FAILED) {
			err = -errno;
			spool_blocks__close(b);
			return err;
		}
		b->base = p;
	}
	*bp = b;
	return 0;
}

/* Make window w resident, dropping the least recently used one if all are taken. */
static void window(struct spool_blocks *b, uint64_t w)
{
	uint32_t slot = 0;
	uint64_t start = w * SPOOL_WINDOW, len;

	b->clock++;
	for (uint32_t i = 0; i < SPOOL_WINDOWS; i++) {
		if (b->win[i] == w + 1) {
			b->used[i] = b->clock;
			return;
		}
		if (b->used[i] < b->used[slot])
			slot = i;
	}
	if (b->win[slot]) {
		uint64_t old = (b->win[slot] - 1) * SPOOL_WINDOW;

		len = b->size - old < SPOOL_WINDOW ? b->size - old : SPOOL_WINDOW;
		/* Read-only file pages: dropping them costs only a re-read of the page cache. */
		madvise((void *)(b->base + old), len, MADV_DONTNEED);
	}
	len = b->size - start < SPOOL_WINDOW ? b->size - start : SPOOL_WINDOW;
	madvise((void *)(b->base + start), len, MADV_POPULATE_READ);	/* a hint, as above */
	b->win[slot] = w + 1;
	b->used[slot] = b->clock;
}

/* n <= SPOOL_ITEM_MAX bytes at off, valid while the file is open. */
static const void *read_at(struct spool_blocks *b, uint64_t off, uint32_t n, int *err)
{
	if (off > b->size || b->size - off < n) {
		*err = -EIO;
		return NULL;
	}
	if (!n)
		return b->base + off;
	window(b, off / SPOOL_WINDOW);
	if ((off + n - 1) / SPOOL_WINDOW != off / SPOOL_WINDOW)
		window(b, (off + n - 1) / SPOOL_WINDOW);
	return b->base + off;
}

int spool_blocks__item(struct spool_blocks *b, uint64_t off, uint32_t max, const void **data,
		       uint32_t *len)
{
	const struct item_hdr *h;
	int err = 0;

	h = read_at(b, off, sizeof(*h), &err);
	if (!h)
		return err;
	*len = h->len;
	if (max > h->len)
		max = h->len;
	*data = read_at(b, off + sizeof(*h), max, &err);
	return *data ? 0 : err;
}

void spool_blocks__close(struct spool_blocks *b)
{
	if (!b)
		return;
	if (b->base)
		munmap((void *)b->base, b->size);
	if (b->fd >= 0)
		close(b->fd);
	free(b);
}
