#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fdio.h"
#include "spool/spool.h"

#define SPOOL_BUF	(4u << 20)

struct item_hdr {
	uint32_t len;
	uint16_t tag;
	uint16_t reserved;
};

struct spool_writer {
	int fd;
	int err;
	size_t used;
	unsigned long long bytes;
	unsigned char *buf;
	/* ring mode */
	uint64_t keep, seg, live;	/* bytes kept, segment size, first segment still held */
	unsigned char *side;		/* copies: {u64 offset, u16 keep_tag, u16 0, u32 len, data} */
	size_t side_len, side_cap;
	/* plain mode: where the items that are not rows went (SPOOL_INDEX) */
	uint64_t *index;
	size_t nindex, index_cap;
	bool no_index;			/* ring mode, or no memory for it: readers scan */
};

#define SIDE_HDR 16

struct spool_reader {
	FILE *f;
	unsigned char *buf;
	size_t cap;
};

int spool_writer__open(struct spool_writer **wp, const char *path)
{
	struct spool_writer *w;
	char head[16];
	int err;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->buf = malloc(SPOOL_BUF);
	if (!w->buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	w->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (w->fd < 0) {
		err = -errno;
		goto cleanup;
	}
	memcpy(head, SPOOL_MAGIC, 8);
	memset(head + 8, 0, 8);
	head[8] = SPOOL_VERSION;
	err = fdio__write_all(w->fd, head, sizeof(head));
	if (err) {
		close(w->fd);
		unlink(path);
		goto cleanup;
	}
	w->bytes = sizeof(head);
	*wp = w;
	return 0;
cleanup:
	free(w->buf);
	free(w);
	return err;
}

int spool_writer__flush(struct spool_writer *w)
{
	if (w->err)
		return w->err;
	if (w->used) {
		w->err = fdio__write_all(w->fd, w->buf, w->used);
		w->used = 0;
	}
	return w->err;
}

static int append_raw(struct spool_writer *w, uint16_t tag, const void *data, uint32_t len)
{
	struct item_hdr h = { .len = len, .tag = tag };
	size_t padded = (len + 7u) & ~7u, need = sizeof(h) + padded;

	if (w->err)
		return w->err;
	if (w->used + need > SPOOL_BUF && spool_writer__flush(w))
		return w->err;
	if (need > SPOOL_BUF) {
		/* Larger than the buffer (never for kernel records): write through. */
		if ((w->err = fdio__write_all(w->fd, &h, sizeof(h))) ||
		    (w->err = fdio__write_all(w->fd, data, len)))
			return w->err;
		static const char zeros[8];
		w->err = fdio__write_all(w->fd, zeros, padded - len);
		w->bytes += need;
		return w->err;
	}
	memcpy(w->buf + w->used, &h, sizeof(h));
	memcpy(w->buf + w->used + sizeof(h), data, len);
	memset(w->buf + w->used + sizeof(h) + len, 0, padded - len);
	w->used += need;
	w->bytes += need;
	return 0;
}

/* Ring mode: make room for an item of need bytes — pad to the next segment when it would
 * cross one, and punch out the oldest segments beyond what is kept. */
static int ring_make_room(struct spool_writer *w, size_t need)
{
	uint64_t in = w->bytes % w->seg;

	if (need > w->seg / 2)
		return -E2BIG;
	if (in + need > w->seg) {
		size_t pad = (size_t)(w->seg - in);

		if (w->used + pad > SPOOL_BUF && spool_writer__flush(w))
			return w->err;
		memset(w->buf + w->used, 0, pad);
		w->used += pad;
		w->bytes += pad;
	}
	while (w->bytes + need - w->live > w->keep) {
		if (spool_writer__flush(w))
			return w->err;
		if (fallocate(w->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)w->live,
			      (off_t)w->seg))
			return w->err = -errno;
		w->live += w->seg;
	}
	return 0;
}

static void index_add(struct spool_writer *w, uint64_t off)
{
	if (w->no_index)
		return;
	if (w->nindex == w->index_cap) {
		size_t cap = w->index_cap ? w->index_cap * 2 : 1024;
		uint64_t *n = realloc(w->index, cap * sizeof(*n));

		if (!n) {
			w->no_index = true;	/* the reader scans instead */
			return;
		}
		w->index = n;
		w->index_cap = cap;
	}
	w->index[w->nindex++] = off;
}

static int append_item(struct spool_writer *w, uint16_t tag, const void *data, uint32_t len,
		       bool indexed)
{
	uint64_t off;
	int err;

	if (w->seg && !w->err && (w->err = ring_make_room(w, 8 + ((len + 7u) & ~7u))))
		return w->err;
	off = w->bytes;
	err = append_raw(w, tag, data, len);
	if (!err && indexed)
		index_add(w, off);
	return err;
}

int spool_writer__append(struct spool_writer *w, uint16_t tag, const void *data, uint32_t len)
{
	return append_item(w, tag, data, len, tag != SPOOL_BPF);
}

int spool_writer__append_side(struct spool_writer *w, uint16_t tag, const void *data, uint32_t len,
			      uint16_t keep_tag)
{
	size_t need = SIDE_HDR + ((len + 7u) & ~7u);
	uint64_t off;
	int err = append_item(w, tag, data, len, true);

	if (err || !w->seg)
		return err;
	if (w->side_len + need > w->side_cap) {
		size_t cap = w->side_cap ? w->side_cap * 2 : 1 << 20;
		unsigned char *n;

		while (cap < w->side_len + need)
			cap *= 2;
		n = realloc(w->side, cap);
		if (!n)
			return w->err = -ENOMEM;
		w->side = n;
		w->side_cap = cap;
	}
	off = w->bytes - 8 - ((len + 7u) & ~7u);	/* where it went */
	memcpy(w->side + w->side_len, &off, 8);
	memcpy(w->side + w->side_len + 8, &keep_tag, 2);
	memset(w->side + w->side_len + 10, 0, 2);
	memcpy(w->side + w->side_len + 12, &len, 4);
	memcpy(w->side + w->side_len + SIDE_HDR, data, len);
	w->side_len += need;
	return 0;
}

int spool_writer__set_ring(struct spool_writer *w, uint64_t keep)
{
	uint64_t seg = (keep / 8) & ~((1ull << 20) - 1);
	unsigned char flag = 1;
	uint32_t s32;
	int err;

	if (seg < (1u << 20))
		seg = 1u << 20;
	if (seg > (1u << 30))
		seg = 1u << 30;
	s32 = (uint32_t)seg;
	err = spool_writer__flush(w);
	if (!err && (pwrite(w->fd, &flag, 1, SPOOL_HDR_RING) != 1 ||
		     pwrite(w->fd, &s32, 4, SPOOL_HDR_SEG) != 4))
		err = w->err = -errno;
	if (err)
		return err;
	/* The ring starts at the next boundary (a hole reads as zeros: "skip to the next
	 * segment"); the header and the session item before it always stay. */
	w->keep = keep;
	w->seg = seg;
	w->no_index = true;	/* punched segments would leave offsets to nothing */
	w->live = (w->bytes + seg - 1) / seg * seg;
	if (lseek(w->fd, (off_t)w->live, SEEK_SET) < 0)
		return w->err = -errno;
	w->bytes = w->live;
	return 0;
}

/* Ring mode, at close: the side copies whose segment was punched out, written again. */
static int ring_write_kept(struct spool_writer *w)
{
	for (size_t p = 0; p < w->side_len && !w->err;) {
		uint64_t off;
		uint16_t tag;
		uint32_t len;

		memcpy(&off, w->side + p, 8);
		memcpy(&tag, w->side + p + 8, 2);
		memcpy(&len, w->side + p + 12, 4);
		/* Past the ring's rules: nothing may be punched now, or the copies of the
		 * segment it took would be lost. */
		if (off < w->live)
			append_raw(w, tag, w->side + p + SIDE_HDR, len);
		p += SIDE_HDR + ((len + 7u) & ~7u);
	}
	return w->err;
}

unsigned long long spool_writer__bytes(const struct spool_writer *w)
{
	return w->bytes;
}

/* The offsets, then the index's own offset and the magic: the last 16 bytes of the file. */
static int write_index(struct spool_writer *w)
{
	size_t len = (w->nindex + 2) * sizeof(uint64_t);
	uint64_t *p;
	int err;

	if (len > UINT32_MAX)
		return 0;		/* readers scan */
	p = malloc(len);
	if (!p)
		return 0;
	memcpy(p, w->index, w->nindex * sizeof(uint64_t));
	p[w->nindex] = w->bytes;
	memcpy(&p[w->nindex + 1], SPOOL_INDEX_MAGIC, 8);
	err = append_raw(w, SPOOL_INDEX, p, (uint32_t)len);
	free(p);
	return err;
}

int spool_writer__close(struct spool_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = w->seg ? ring_write_kept(w) : 0;
	if (!err && !w->no_index)
		err = write_index(w);
	err = spool_writer__flush(w) ?: err;
	/* No fsync: finalize reads the spool back at once from the page cache and removes it;
	 * syncing it guarded only against the machine crashing in between, and cost 0.17 s
	 * for a traced C build's 150 MB (the trace itself is synced before its rename). */
	if (close(w->fd) && !err)
		err = -errno;
	free(w->buf);
	free(w->side);
	free(w->index);
	free(w);
	return err;
}

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
		    off + sizeof(struct item_hdr) + e.len > self || !e.tag || e.tag >= SPOOL_INDEX)
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
