/* The spool's writer: buffered appends, ring mode, the index written at close. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fdio.h"
#include "spool/spool.h"
#include "spool/spool_item.h"

#define SPOOL_BUF	(4u << 20)

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

/* *at: where the item went. */
static int append_item(struct spool_writer *w, uint16_t tag, const void *data, uint32_t len,
		       bool indexed, uint64_t *at)
{
	int err;

	if (w->seg && !w->err && (w->err = ring_make_room(w, 8 + ((len + 7u) & ~7u))))
		return w->err;
	*at = w->bytes;
	err = append_raw(w, tag, data, len);
	if (!err && indexed)
		index_add(w, *at);
	return err;
}

int spool_writer__append(struct spool_writer *w, uint16_t tag, const void *data, uint32_t len)
{
	uint64_t at;

	return append_item(w, tag, data, len, tag != SPOOL_BPF, &at);
}

int spool_writer__append_side(struct spool_writer *w, uint16_t tag, const void *data, uint32_t len,
			      uint16_t keep_tag)
{
	size_t need = SIDE_HDR + ((len + 7u) & ~7u);
	uint64_t off;
	int err = append_item(w, tag, data, len, true, &off);

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
