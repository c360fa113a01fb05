#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fdio.h"
#include "finalize/runfile.h"

#define STAGE_BYTES	(1u << 20)

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline const uint8_t *get_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; p < end && shift < 64; shift += 7) {
		uint8_t b = *p++;

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return p;
		}
	}
	return NULL;
}

int run_writer__begin(struct run_writer *w, int fd, uint64_t off)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->off = off;
	w->cap = STAGE_BYTES + RUNBLOCK_MAX_BYTES;
	w->buf = malloc(w->cap);
	return w->buf ? 0 : -ENOMEM;
}

static void close_block(struct run_writer *w)
{
	uint32_t hdr[2] = { (uint32_t)(w->len - w->blk - 8), w->blk_rows };

	memcpy(w->buf + w->blk, hdr, sizeof(hdr));
	w->blk_rows = 0;
}

static int flush(struct run_writer *w)
{
	int err = fdio__pwrite_all(w->fd, w->buf, w->len, w->off);

	w->off += w->len;
	w->len = 0;
	return err;
}

int run_writer__add(struct run_writer *w, const struct rowref *ref)
{
	uint64_t item = (ref->item & ~ROWREF_EXIT_HALF) << 1 | !!(ref->item & ROWREF_EXIT_HALF);
	int64_t d = (int64_t)(item - w->prev_item);
	uint8_t *p;

	if (!w->blk_rows) {
		w->blk = w->len;
		w->len += 8;
		w->prev_ts = w->prev_item = 0;
		d = (int64_t)item;
	}
	p = w->buf + w->len;
	p = put_varint(p, ref->ts - w->prev_ts);
	p = put_varint(p, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
	p = put_varint(p, (uint32_t)(ref->ustack + 1));
	p = put_varint(p, (uint32_t)(ref->kstack + 1));
	p = put_varint(p, (uint32_t)(ref->wustack + 1));
	p = put_varint(p, (uint32_t)(ref->wkstack + 1));
	w->len = (size_t)(p - w->buf);
	w->prev_ts = ref->ts;
	w->prev_item = item;
	w->rows++;
	if (++w->blk_rows == RUNBLOCK_ROWS) {
		close_block(w);
		if (w->len >= STAGE_BYTES)
			return flush(w);
	}
	return 0;
}

int run_writer__end(struct run_writer *w, uint64_t *end)
{
	int err;

	if (w->blk_rows)
		close_block(w);
	err = w->len ? flush(w) : 0;
	*end = w->off;
	free(w->buf);
	w->buf = NULL;
	return err;
}

int run_reader__init(struct run_reader *rd, int fd, uint64_t start, uint64_t end)
{
	memset(rd, 0, sizeof(*rd));
	rd->fd = fd;
	rd->next = start;
	rd->end = end;
	rd->raw = malloc(RUNBLOCK_MAX_BYTES);
	rd->rows = malloc(RUNBLOCK_ROWS * sizeof(*rd->rows));
	return rd->raw && rd->rows ? 0 : -ENOMEM;
}

static int decode(struct run_reader *rd, const uint8_t *p, const uint8_t *end, uint32_t n)
{
	uint64_t ts = 0, item = 0, v;

	for (uint32_t i = 0; i < n; i++) {
		struct rowref *r = &rd->rows[i];

		if (!(p = get_varint(p, end, &v)))
			return -EIO;
		ts += v;
		if (!(p = get_varint(p, end, &v)))
			return -EIO;
		item += (v >> 1) ^ -(v & 1);
		r->ts = ts;
		r->item = item >> 1 | (item & 1 ? ROWREF_EXIT_HALF : 0);
		if (!(p = get_varint(p, end, &v)))
			return -EIO;
		r->ustack = (int32_t)((uint32_t)v - 1);
		if (!(p = get_varint(p, end, &v)))
			return -EIO;
		r->kstack = (int32_t)((uint32_t)v - 1);
		if (!(p = get_varint(p, end, &v)))
			return -EIO;
		r->wustack = (int32_t)((uint32_t)v - 1);
		if (!(p = get_varint(p, end, &v)))
			return -EIO;
		r->wkstack = (int32_t)((uint32_t)v - 1);
	}
	return 0;
}

int run_reader__fill(struct run_reader *rd)
{
	uint32_t hdr[2];
	int err;

	rd->i = rd->n = 0;
	if (rd->next == rd->end)
		return 0;
	err = fdio__pread_all(rd->fd, hdr, sizeof(hdr), rd->next);
	if (err)
		return err;
	if (hdr[0] > RUNBLOCK_MAX_BYTES - 8 || !hdr[1] || hdr[1] > RUNBLOCK_ROWS ||
	    rd->end - rd->next < 8 + (uint64_t)hdr[0])
		return -EIO;
	err = fdio__pread_all(rd->fd, rd->raw, hdr[0], rd->next + 8);
	if (!err)
		err = decode(rd, rd->raw, rd->raw + hdr[0], hdr[1]);
	if (err)
		return err;
	rd->next += 8 + hdr[0];
	rd->n = hdr[1];
	return 0;
}

void run_reader__free(struct run_reader *rd)
{
	free(rd->raw);
	free(rd->rows);
	rd->raw = NULL;
	rd->rows = NULL;
}
