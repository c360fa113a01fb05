/* The ARROW:schema key-value metadata that Arrow's own Parquet writers add to a file.
 *
 * Arrow readers (arrow-rs, pyarrow, polars) take a column's Arrow type from it when the
 * Parquet type allows several: a string list's items become Utf8View rather than Utf8,
 * and the list child keeps its name.  The value is base64 (standard, padded) of an
 * encapsulated Arrow IPC message: 0xFFFFFFFF, the int32 length of what follows, then
 * the flatbuffer Message { version: V5, header: Schema { endianness: Little, fields } },
 * zero-padded to 8 bytes (format/Message.fbs, format/Schema.fbs).
 *
 * Debian 12 packages no C flatbuffers builder (only the C++ library and flatc), and
 * the message is one fixed shape, so it is built here by hand: a back-to-front builder
 * of ~100 lines for tables, strings and offset vectors, as flatbuffers' own builders
 * lay them out.  Field ids below are the .fbs declaration order (a union takes two ids:
 * its type byte, then its offset). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "parquet/parquet.h"

/* Schema.fbs / Message.fbs numbering. */
enum { FB_TYPE_INT = 2, FB_TYPE_UTF8 = 5, FB_TYPE_BOOL = 6, FB_TYPE_LIST = 12, FB_TYPE_UTF8VIEW = 24 };
enum { FB_HEADER_SCHEMA = 1, FB_METADATA_V5 = 4, FB_ENDIAN_LITTLE = 0 };
enum { FIELD_NAME, FIELD_NULLABLE, FIELD_TYPE_TYPE, FIELD_TYPE, FIELD_DICTIONARY, FIELD_CHILDREN };
enum { SCHEMA_ENDIANNESS, SCHEMA_FIELDS };
enum { MESSAGE_VERSION, MESSAGE_HEADER_TYPE, MESSAGE_HEADER };
enum { INT_BIT_WIDTH, INT_IS_SIGNED };

#define FB_CAP (256u * 1024)
#define FB_MAX_IDS 8

/* Bytes grow down from the end of buf; an object is named by its distance from the end
 * (len right after it was written), which stays valid as the buffer grows. */
struct fb {
	uint8_t *buf;
	uint32_t len, minalign;
	int err;
};

struct fb_table {
	uint32_t start, field[FB_MAX_IDS];
	int nids;
};

static void fb_push(struct fb *b, const void *p, uint32_t n)
{
	if (b->err || n > FB_CAP - b->len) {
		b->err = -E2BIG;
		return;
	}
	b->len += n;
	if (p)
		memcpy(b->buf + FB_CAP - b->len, p, n);
	else
		memset(b->buf + FB_CAP - b->len, 0, n);
}

/* Pad so that len + extra is a multiple of align. */
static void fb_align(struct fb *b, uint32_t align, uint32_t extra)
{
	if (align > b->minalign)
		b->minalign = align;
	fb_push(b, NULL, (align - (b->len + extra) % align) % align);
}

static uint32_t fb_scalar(struct fb *b, const void *v, uint32_t size)
{
	fb_align(b, size, 0);
	fb_push(b, v, size);
	return b->len;
}

/* A uoffset is relative to its own position: target address minus field address. */
static uint32_t fb_uoffset(struct fb *b, uint32_t target)
{
	uint32_t v;

	fb_align(b, 4, 0);
	v = b->len + 4 - target;
	fb_push(b, &v, 4);
	return b->len;
}

static uint32_t fb_string(struct fb *b, const char *s)
{
	uint32_t n = (uint32_t)strlen(s);

	fb_align(b, 4, n + 1);
	fb_push(b, NULL, 1);
	fb_push(b, s, n);
	return fb_scalar(b, &n, 4);
}

static uint32_t fb_offsets(struct fb *b, const uint32_t *targets, uint32_t n)
{
	for (uint32_t i = n; i-- > 0;)
		fb_uoffset(b, targets[i]);
	fb_align(b, 4, 0);
	return fb_scalar(b, &n, 4);
}

static void fb_table_begin(struct fb *b, struct fb_table *t)
{
	memset(t, 0, sizeof(*t));
	t->start = b->len;
}

static void fb_field(struct fb_table *t, int id, uint32_t at)
{
	t->field[id] = at;
	if (id >= t->nids)
		t->nids = id + 1;
}

static void fb_add_u8(struct fb *b, struct fb_table *t, int id, uint8_t v)
{
	fb_field(t, id, fb_scalar(b, &v, 1));
}

static void fb_add_i16(struct fb *b, struct fb_table *t, int id, int16_t v)
{
	fb_field(t, id, fb_scalar(b, &v, 2));
}

static void fb_add_i32(struct fb *b, struct fb_table *t, int id, int32_t v)
{
	fb_field(t, id, fb_scalar(b, &v, 4));
}

static void fb_add_offset(struct fb *b, struct fb_table *t, int id, uint32_t target)
{
	fb_field(t, id, fb_uoffset(b, target));
}

/* The table's soffset to its vtable, then the vtable just below it (not shared). */
static uint32_t fb_table_end(struct fb *b, struct fb_table *t)
{
	uint32_t table;
	int32_t soff = 0;
	uint16_t v;

	fb_align(b, 4, 0);
	fb_push(b, &soff, 4);
	table = b->len;
	for (int id = t->nids; id-- > 0;) {
		v = (uint16_t)(t->field[id] ? table - t->field[id] : 0);
		fb_push(b, &v, 2);
	}
	v = (uint16_t)(table - t->start);
	fb_push(b, &v, 2);
	v = (uint16_t)(4 + 2 * t->nids);
	fb_push(b, &v, 2);
	soff = (int32_t)(b->len - table);	/* vtable = table - soffset */
	if (!b->err)
		memcpy(b->buf + FB_CAP - table, &soff, 4);
	return table;
}

static uint32_t fb_empty_table(struct fb *b)
{
	struct fb_table t;

	fb_table_begin(b, &t);
	return fb_table_end(b, &t);
}

static uint32_t arrow_int(struct fb *b, int32_t bits, bool is_signed)
{
	struct fb_table t;

	fb_table_begin(b, &t);
	fb_add_i32(b, &t, INT_BIT_WIDTH, bits);
	fb_add_u8(b, &t, INT_IS_SIGNED, is_signed);
	return fb_table_end(b, &t);
}

static uint32_t arrow_field(struct fb *b, const char *name, bool nullable, uint8_t type_type,
			    uint32_t type, const uint32_t *children, uint32_t nchildren)
{
	uint32_t name_at = fb_string(b, name), kids = fb_offsets(b, children, nchildren);
	struct fb_table t;

	fb_table_begin(b, &t);
	fb_add_offset(b, &t, FIELD_NAME, name_at);
	fb_add_offset(b, &t, FIELD_TYPE, type);
	fb_add_offset(b, &t, FIELD_CHILDREN, kids);
	fb_add_u8(b, &t, FIELD_NULLABLE, nullable);
	fb_add_u8(b, &t, FIELD_TYPE_TYPE, type_type);
	return fb_table_end(b, &t);
}

/* The Arrow type of each writer type is the one arrow-rs reads it back as, except that
 * list items are Utf8View, as the 0.1 format's files declare them. */
static uint32_t column_field(struct fb *b, const struct pq_column_def *c)
{
	static const struct { int8_t bits; bool is_signed; } ints[] = {
		[PQ_U8] = { 8, false }, [PQ_U32] = { 32, false }, [PQ_I32] = { 32, true },
		[PQ_U64] = { 64, false }, [PQ_I64] = { 64, true },
	};
	uint32_t item;

	switch (c->type) {
	case PQ_U8:
	case PQ_U32:
	case PQ_I32:
	case PQ_U64:
	case PQ_I64:
		return arrow_field(b, c->name, !c->required, FB_TYPE_INT,
				   arrow_int(b, ints[c->type].bits, ints[c->type].is_signed), NULL, 0);
	case PQ_BOOL:
		return arrow_field(b, c->name, !c->required, FB_TYPE_BOOL, fb_empty_table(b), NULL, 0);
	case PQ_STRING:
		return arrow_field(b, c->name, !c->required, FB_TYPE_UTF8, fb_empty_table(b), NULL, 0);
	case PQ_STRING_LIST:
		item = arrow_field(b, PQ_LIST_ITEM, true, FB_TYPE_UTF8VIEW, fb_empty_table(b), NULL, 0);
		return arrow_field(b, c->name, !c->required, FB_TYPE_LIST, fb_empty_table(b), &item, 1);
	}
	b->err = -EINVAL;
	return 0;
}

static uint32_t schema_message(struct fb *b, const struct pq_column_def *cols, int ncols,
			       uint32_t *fields)
{
	struct fb_table t;
	uint32_t vec, schema;

	for (int i = 0; i < ncols; i++)
		fields[i] = column_field(b, &cols[i]);
	vec = fb_offsets(b, fields, (uint32_t)ncols);
	fb_table_begin(b, &t);
	fb_add_offset(b, &t, SCHEMA_FIELDS, vec);
	fb_add_i16(b, &t, SCHEMA_ENDIANNESS, FB_ENDIAN_LITTLE);
	schema = fb_table_end(b, &t);

	fb_table_begin(b, &t);
	fb_add_offset(b, &t, MESSAGE_HEADER, schema);
	fb_add_i16(b, &t, MESSAGE_VERSION, FB_METADATA_V5);
	fb_add_u8(b, &t, MESSAGE_HEADER_TYPE, FB_HEADER_SCHEMA);
	return fb_table_end(b, &t);
}

int pq_arrow_schema__ipc(const struct pq_column_def *cols, int ncols, uint8_t **out, size_t *len)
{
	struct fb b = { .minalign = 1 };
	uint32_t *fields, root, pad;
	uint8_t *msg;
	int32_t body;

	*out = NULL;
	*len = 0;
	if (ncols < 0 || (ncols && !cols))
		return -EINVAL;
	b.buf = malloc(FB_CAP);
	fields = calloc((size_t)ncols + 1, sizeof(*fields));
	if (!b.buf || !fields) {
		b.err = -ENOMEM;
		goto out;
	}
	root = schema_message(&b, cols, ncols, fields);
	fb_align(&b, b.minalign, 4);
	fb_uoffset(&b, root);
	if (b.err)
		goto out;
	pad = (8 - b.len % 8) % 8;
	body = (int32_t)(b.len + pad);
	msg = calloc(1, 8 + (size_t)body);
	if (!msg) {
		b.err = -ENOMEM;
		goto out;
	}
	memset(msg, 0xff, 4);
	memcpy(msg + 4, &body, 4);
	memcpy(msg + 8, b.buf + FB_CAP - b.len, b.len);
	*out = msg;
	*len = 8 + (size_t)body;
out:
	free(fields);
	free(b.buf);
	return b.err;
}

char *pq_arrow_schema__base64(const struct pq_column_def *cols, int ncols)
{
	uint8_t *msg;
	size_t len;
	char *s;

	if (pq_arrow_schema__ipc(cols, ncols, &msg, &len))
		return NULL;
	s = base64__encode(msg, len);
	free(msg);
	return s;
}
