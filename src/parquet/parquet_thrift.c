/* Thrift compact protocol, write side only, and the Parquet structs built with it
 * (field ids from parquet-format's parquet.thrift).
 *
 * Compact protocol: a field header is one byte (id delta << 4 | type) when the id is
 * 1..15 above the previous one in the struct; integers are zigzag varints; i8 is a raw
 * byte; bools live in the field header's type nibble; a struct ends with a 0 byte. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/parquet_int.h"

enum {
	CT_TRUE = 1, CT_FALSE = 2, CT_I8 = 3, CT_I16 = 4, CT_I32 = 5, CT_I64 = 6,
	CT_BINARY = 8, CT_LIST = 9, CT_STRUCT = 12,
};

/* ConvertedType and FieldRepetitionType values. */
enum { CONV_UTF8 = 0, CONV_LIST = 3, CONV_UINT_8 = 11, CONV_UINT_32 = 13, CONV_UINT_64 = 14,
       CONV_INT_32 = 17, CONV_INT_64 = 18 };
enum { REP_REQUIRED = 0, REP_OPTIONAL = 1, REP_REPEATED = 2 };

void pq_thrift__init(struct pq_thrift *t, struct pq_buf *b)
{
	memset(t, 0, sizeof(*t));
	t->b = b;
}

static void put(struct pq_thrift *t, const void *p, size_t n)
{
	if (t->err || !n)
		return;
	t->err = pq_buf__reserve(t->b, n);
	if (t->err)
		return;
	memcpy(t->b->p + t->b->len, p, n);
	t->b->len += n;
}

static void put_byte(struct pq_thrift *t, uint8_t v)
{
	put(t, &v, 1);
}

static void put_varint(struct pq_thrift *t, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	while (v >= 0x80) {
		tmp[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (uint8_t)v;
	put(t, tmp, n);
}

static void put_zigzag(struct pq_thrift *t, int64_t v)
{
	put_varint(t, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void field(struct pq_thrift *t, int16_t id, int type)
{
	int16_t delta = id - t->last[t->depth];

	if (delta > 0 && delta <= 15) {
		put_byte(t, (uint8_t)(delta << 4 | type));
	} else {
		put_byte(t, (uint8_t)type);
		put_zigzag(t, id);
	}
	t->last[t->depth] = id;
}

static void f_i32(struct pq_thrift *t, int16_t id, int64_t v)
{
	field(t, id, CT_I32);
	put_zigzag(t, v);
}

static void f_i64(struct pq_thrift *t, int16_t id, int64_t v)
{
	field(t, id, CT_I64);
	put_zigzag(t, v);
}

static void f_bool(struct pq_thrift *t, int16_t id, bool v)
{
	field(t, id, v ? CT_TRUE : CT_FALSE);
}

static void f_i8(struct pq_thrift *t, int16_t id, int8_t v)
{
	field(t, id, CT_I8);
	put_byte(t, (uint8_t)v);
}

static void bin(struct pq_thrift *t, const void *p, size_t n)
{
	put_varint(t, n);
	put(t, p, n);
}

static void f_bin(struct pq_thrift *t, int16_t id, const void *p, size_t n)
{
	field(t, id, CT_BINARY);
	bin(t, p, n);
}

static void f_str(struct pq_thrift *t, int16_t id, const char *s)
{
	f_bin(t, id, s, strlen(s));
}

/* Nested struct: a struct field, or a struct element of a list (id 0: no header). */
static void struct_begin(struct pq_thrift *t, int16_t id)
{
	if (id)
		field(t, id, CT_STRUCT);
	if (t->depth + 1 >= (int)(sizeof(t->last) / sizeof(t->last[0]))) {
		t->err = -E2BIG;
		return;
	}
	t->last[++t->depth] = 0;
}

static void struct_end(struct pq_thrift *t)
{
	put_byte(t, 0);
	if (t->depth > 0)
		t->depth--;
}

static void list_header(struct pq_thrift *t, int elem_type, uint32_t n)
{
	if (n < 15) {
		put_byte(t, (uint8_t)(n << 4 | elem_type));
	} else {
		put_byte(t, (uint8_t)(0xf0 | elem_type));
		put_varint(t, n);
	}
}

static void f_list(struct pq_thrift *t, int16_t id, int elem_type, uint32_t n)
{
	field(t, id, CT_LIST);
	list_header(t, elem_type, n);
}

int pq_thrift__page_header(struct pq_buf *b, int page_type, uint32_t uncompressed,
			   uint32_t compressed, uint32_t num_values, int encoding)
{
	struct pq_thrift t;

	pq_thrift__init(&t, b);
	f_i32(&t, 1, page_type);
	f_i32(&t, 2, uncompressed);
	f_i32(&t, 3, compressed);
	if (page_type == PAGE_DICTIONARY) {
		struct_begin(&t, 7);			/* DictionaryPageHeader */
		f_i32(&t, 1, num_values);
		f_i32(&t, 2, ENC_PLAIN);
		f_bool(&t, 3, false);			/* is_sorted */
		struct_end(&t);
	} else {
		struct_begin(&t, 5);			/* DataPageHeader */
		f_i32(&t, 1, num_values);
		f_i32(&t, 2, encoding);
		f_i32(&t, 3, ENC_RLE);			/* definition levels */
		f_i32(&t, 4, ENC_RLE);			/* repetition levels */
		struct_end(&t);
	}
	struct_end(&t);
	return t.err;
}

static bool signed_order(const struct pq_leaf *l)
{
	return l->type == PQ_I32 || l->type == PQ_I64;
}

static void statistics(struct pq_thrift *t, const struct pq_leaf *l, const struct pq_chunk *c)
{
	struct_begin(t, 12);
	/* The deprecated max/min (1, 2) are defined as signed-order; old readers use them. */
	if (c->has_minmax && signed_order(l)) {
		f_bin(t, 1, c->max, c->max_len);
		f_bin(t, 2, c->min, c->min_len);
	}
	f_i64(t, 3, c->null_count);
	if (c->has_minmax) {
		f_bin(t, 5, c->max, c->max_len);
		f_bin(t, 6, c->min, c->min_len);
		f_bool(t, 7, c->minmax_exact);
		f_bool(t, 8, c->minmax_exact);
	}
	struct_end(t);
}

static void encoding_stats(struct pq_thrift *t, const struct pq_chunk *c)
{
	f_list(t, 13, CT_STRUCT, c->dict_len ? 2 : 1);
	if (c->dict_len) {
		struct_begin(t, 0);
		f_i32(t, 1, PAGE_DICTIONARY);
		f_i32(t, 2, ENC_PLAIN);
		f_i32(t, 3, 1);
		struct_end(t);
	}
	struct_begin(t, 0);
	f_i32(t, 1, PAGE_DATA);
	f_i32(t, 2, c->dict_len ? ENC_RLE_DICTIONARY : c->data_encoding);
	f_i32(t, 3, c->ndata_pages);
	struct_end(t);
}

static void column_chunk(struct pq_thrift *t, const struct pq_leaf *l, const struct pq_chunk *c)
{
	int enc[4], nenc = 0;

	enc[nenc++] = ENC_PLAIN;
	if (c->data_encoding == ENC_DELTA_BINARY_PACKED)
		enc[nenc++] = ENC_DELTA_BINARY_PACKED;
	if (c->dict_len)
		enc[nenc++] = ENC_RLE_DICTIONARY;
	if (l->max_def || l->max_rep)
		enc[nenc++] = ENC_RLE;

	struct_begin(t, 0);
	f_i64(t, 2, 0);				/* file_offset: deprecated, 0 */
	struct_begin(t, 3);			/* ColumnMetaData */
	f_i32(t, 1, l->phys);
	f_list(t, 2, CT_I32, nenc);
	for (int i = 0; i < nenc; i++)
		put_zigzag(t, enc[i]);
	if (l->type == PQ_STRING_LIST) {
		f_list(t, 3, CT_BINARY, 3);
		bin(t, l->name, strlen(l->name));
		bin(t, "list", 4);
		bin(t, PQ_LIST_ITEM, strlen(PQ_LIST_ITEM));
	} else {
		f_list(t, 3, CT_BINARY, 1);
		bin(t, l->name, strlen(l->name));
	}
	f_i32(t, 4, CODEC_ZSTD);
	f_i64(t, 5, c->num_values);
	f_i64(t, 6, c->uncompressed);
	f_i64(t, 7, (int64_t)c->out.len);
	f_i64(t, 9, c->offset + c->dict_len);	/* first data page */
	if (c->dict_len)
		f_i64(t, 11, c->offset);
	statistics(t, l, c);
	encoding_stats(t, c);
	struct_end(t);
	struct_end(t);
}

int pq_thrift__row_group(struct pq_buf *b, const struct pq_leaf *leaves, int ncols,
			 const struct pq_chunk *chunks, int64_t nrows, int ordinal)
{
	struct pq_thrift t;
	int64_t total = 0, compressed = 0;

	pq_thrift__init(&t, b);
	for (int i = 0; i < ncols; i++) {
		total += chunks[i].uncompressed;
		compressed += (int64_t)chunks[i].out.len;
	}
	f_list(&t, 1, CT_STRUCT, ncols);
	for (int i = 0; i < ncols; i++)
		column_chunk(&t, &leaves[i], &chunks[i]);
	f_i64(&t, 2, total);
	f_i64(&t, 3, nrows);
	f_i64(&t, 5, chunks[0].offset);
	f_i64(&t, 6, compressed);
	if (ordinal <= INT16_MAX) {
		field(&t, 7, CT_I16);
		put_zigzag(&t, ordinal);
	}
	put_byte(&t, 0);
	return t.err;
}

/* INTEGER logical type + its ConvertedType twin for each integer column type. */
static void int_type(struct pq_thrift *t, int conv, int bits, bool is_signed)
{
	f_i32(t, 6, conv);
	struct_begin(t, 10);			/* LogicalType */
	struct_begin(t, 10);			/* IntType */
	f_i8(t, 1, (int8_t)bits);
	f_bool(t, 2, is_signed);
	struct_end(t);
	struct_end(t);
}

static void empty_logical(struct pq_thrift *t, int16_t member)
{
	struct_begin(t, 10);
	struct_begin(t, member);		/* StringType / ListType: empty structs */
	struct_end(t);
	struct_end(t);
}

static void schema_leaf(struct pq_thrift *t, const struct pq_leaf *l)
{
	struct_begin(t, 0);
	if (l->type == PQ_STRING_LIST) {
		/* optional group NAME (LIST) { repeated group list { optional binary item } } */
		f_i32(t, 3, l->required ? REP_REQUIRED : REP_OPTIONAL);
		f_str(t, 4, l->name);
		f_i32(t, 5, 1);
		f_i32(t, 6, CONV_LIST);
		empty_logical(t, 3);
		struct_end(t);
		struct_begin(t, 0);
		f_i32(t, 3, REP_REPEATED);
		f_str(t, 4, "list");
		f_i32(t, 5, 1);
		struct_end(t);
		struct_begin(t, 0);
		f_i32(t, 1, PT_BYTE_ARRAY);
		f_i32(t, 3, REP_OPTIONAL);
		f_str(t, 4, PQ_LIST_ITEM);
		f_i32(t, 6, CONV_UTF8);
		empty_logical(t, 1);
		struct_end(t);
		return;
	}
	f_i32(t, 1, l->phys);
	f_i32(t, 3, l->required ? REP_REQUIRED : REP_OPTIONAL);
	f_str(t, 4, l->name);
	switch (l->type) {
	case PQ_U8:
		int_type(t, CONV_UINT_8, 8, false);
		break;
	case PQ_U32:
		int_type(t, CONV_UINT_32, 32, false);
		break;
	case PQ_I32:
		int_type(t, CONV_INT_32, 32, true);
		break;
	case PQ_U64:
		int_type(t, CONV_UINT_64, 64, false);
		break;
	case PQ_I64:
		int_type(t, CONV_INT_64, 64, true);
		break;
	case PQ_STRING:
		f_i32(t, 6, CONV_UTF8);
		empty_logical(t, 1);
		break;
	default:
		break;
	}
	struct_end(t);
}

int pq_thrift__file_meta(struct pq_buf *b, const struct pq_leaf *leaves, int ncols,
			 int64_t nrows, const struct pq_buf *row_groups, uint32_t nrg,
			 const struct pq_kv *kv, int nkv, const char *created_by)
{
	struct pq_thrift t;
	uint32_t nschema = 1;

	for (int i = 0; i < ncols; i++)
		nschema += leaves[i].type == PQ_STRING_LIST ? 3 : 1;

	pq_thrift__init(&t, b);
	f_i32(&t, 1, 2);			/* version */
	f_list(&t, 2, CT_STRUCT, nschema);
	struct_begin(&t, 0);			/* root */
	f_str(&t, 4, "schema");
	f_i32(&t, 5, ncols);
	struct_end(&t);
	for (int i = 0; i < ncols; i++)
		schema_leaf(&t, &leaves[i]);
	f_i64(&t, 3, nrows);
	f_list(&t, 4, CT_STRUCT, nrg);
	put(&t, row_groups->p, row_groups->len);
	if (nkv > 0) {
		f_list(&t, 5, CT_STRUCT, nkv);
		for (int i = 0; i < nkv; i++) {
			struct_begin(&t, 0);
			f_str(&t, 1, kv[i].key);
			if (kv[i].value)
				f_str(&t, 2, kv[i].value);
			struct_end(&t);
		}
	}
	f_str(&t, 6, created_by);
	/* min_value/max_value are only defined with column_orders: TYPE_ORDER for all. */
	f_list(&t, 7, CT_STRUCT, ncols);
	for (int i = 0; i < ncols; i++) {
		struct_begin(&t, 0);		/* ColumnOrder union */
		struct_begin(&t, 1);		/* TypeDefinedOrder */
		struct_end(&t);
		struct_end(&t);
	}
	put_byte(&t, 0);
	return t.err;
}
