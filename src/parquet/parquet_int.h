/* Interfaces between the Parquet writer's files; only src/parquet/parquet*.c include this.
 *
 *   parquet.c         writer lifecycle, row groups, threads, file I/O
 *   parquet_column.c  one column chunk → pages (levels, PLAIN values, stats, ZSTD)
 *   parquet_dict.c    dictionary-encoded strings, PQ_U32 values and string lists
 *   parquet_rle.c     RLE / bit-packing hybrid and bit-packing
 *   parquet_thrift.c  Thrift compact protocol: page headers, row groups, footer */
#ifndef PROBEX_PARQUET_PARQUET_INT_H
#define PROBEX_PARQUET_PARQUET_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "parquet/parquet.h"

/* parquet.thrift enum values we use. */
enum { PT_BOOLEAN = 0, PT_INT32 = 1, PT_INT64 = 2, PT_BYTE_ARRAY = 6 };
enum { ENC_PLAIN = 0, ENC_RLE = 3, ENC_DELTA_BINARY_PACKED = 5, ENC_RLE_DICTIONARY = 8 };
enum { PAGE_DATA = 0, PAGE_DICTIONARY = 2 };
enum { CODEC_ZSTD = 6 };

/* Growable byte buffer.  Buffers live as long as the writer so that their pages are
 * faulted in once, not once per row group (fresh-page faults are what is slow here). */
struct pq_buf {
	uint8_t *p;
	size_t len, cap;
};

int pq_buf__reserve(struct pq_buf *b, size_t extra);	/* cap >= len + extra, or -ENOMEM */
void pq_buf__free(struct pq_buf *b);

/* A leaf column's static facts, derived from its pq_column_def at open(). */
struct pq_leaf {
	const char *name;
	enum pq_type type;
	bool required;
	int phys;		/* PT_* */
	int max_def, max_rep;
	bool delta;		/* INT64 values as DELTA_BINARY_PACKED */
	bool dict;		/* PQ_U32 values dictionary-encoded */
};

/* One encoded column chunk of the current row group, plus what the footer needs. */
struct pq_chunk {
	struct pq_buf out;		/* [dictionary page] data pages, headers included */
	int64_t offset;			/* file offset of out.p[0], set when written */
	int64_t num_values;		/* level entries: rows, or list entries */
	int64_t uncompressed;		/* headers + uncompressed page bodies */
	int64_t null_count;
	uint32_t dict_len;		/* bytes of the dictionary page; 0 = none */
	int data_encoding;		/* ENC_* of the data pages' values */
	uint32_t ndata_pages;
	bool has_minmax, minmax_exact;
	uint32_t min_len, max_len;
	const uint8_t *min, *max;	/* into minmax_buf or the caller's dictionary */
	uint8_t minmax_buf[16];
};

/* Per-thread scratch, reused for every chunk a thread encodes. */
struct pq_scratch {
	ZSTD_CCtx *zc;
	struct pq_buf page;		/* uncompressed page body */
	struct pq_buf hdr;		/* serialized page header */
	struct pq_buf ids;		/* uint32_t local dictionary ids */
	struct pq_buf levels;		/* list rep + def levels of a page (uint8_t) */
	struct pq_buf pages;		/* uint32_t page boundaries */
	uint32_t *remap;		/* caller string id → local id + 1; all 0 between chunks */
	uint32_t *order;		/* local id → caller string id */
	uint32_t remap_cap;
};

struct pq_encode_opts {
	int zstd_level;
	uint32_t page_bytes;
};

int pq_scratch__init(struct pq_scratch *s);
void pq_scratch__free(struct pq_scratch *s);

/* Encode nrows of d as the pages of one column chunk into c (c->out is overwritten). */
int pq_column__encode(struct pq_scratch *s, const struct pq_encode_opts *o,
		      const struct pq_leaf *leaf, uint32_t nrows, const struct pq_column_data *d,
		      struct pq_chunk *c);

/* Chunk-wide min/max of the non-null values, in the column's own signedness. */
struct pq_minmax {
	bool any;
	int64_t smin, smax;
	uint64_t umin, umax;
};

/* parquet_column.c, for parquet_dict.c */
int pq_page__emit(struct pq_scratch *s, const struct pq_encode_opts *o, struct pq_chunk *c,
		  int type, uint32_t nvalues, int encoding);
void pq_levels__put_bits(struct pq_buf *p, const uint8_t *valid, size_t n);
void pq_levels__put_u8(struct pq_buf *p, const uint8_t *v, size_t n, int width);
void pq_minmax__store(const struct pq_minmax *mm, const struct pq_leaf *l, struct pq_chunk *c);

/* parquet_dict.c: s->remap and s->order for caller ids below n, then the chunk's
 * dictionary page and data pages; *ndict counts the local ids used (to reset s->remap). */
int pq_dict__reserve(struct pq_scratch *s, uint32_t n);
int pq_dict__encode_strings(struct pq_scratch *s, const struct pq_encode_opts *o,
			    const struct pq_leaf *l, uint32_t nrows,
			    const struct pq_column_data *d, struct pq_chunk *c, uint32_t *ndict,
			    uint32_t ndict_in);
int pq_dict__encode_lists(struct pq_scratch *s, const struct pq_encode_opts *o,
			  const struct pq_leaf *l, uint32_t nrows, const struct pq_column_data *d,
			  struct pq_chunk *c, uint32_t *ndict);

/* RLE / bit-packing hybrid (Encodings.md), no length prefix.  The caller reserves
 * pq_rle__bound(n, width) bytes at b->len. */
size_t pq_rle__bound(size_t n, int width);
void pq_rle__encode_u32(struct pq_buf *b, const uint32_t *v, size_t n, int width);
void pq_rle__encode_u8(struct pq_buf *b, const uint8_t *v, size_t n, int width);
/* Width-1 levels from bytes where nonzero means 1; v == NULL means n ones. */
void pq_rle__encode_bits(struct pq_buf *b, const uint8_t *v, size_t n);
/* 8 bytes (0 or nonzero) → 8 bits, LSB first. */
uint8_t pq_rle__pack8(const uint8_t *v);
int pq_rle__width(uint32_t max_value);

/* Thrift compact protocol output (serialized into a pq_buf; errors are sticky). */
struct pq_thrift {
	struct pq_buf *b;
	int16_t last[8];	/* last field id at each struct nesting level */
	int depth;
	int err;
};

void pq_thrift__init(struct pq_thrift *t, struct pq_buf *b);

/* Serialize a V1 data page or dictionary page header. */
int pq_thrift__page_header(struct pq_buf *b, int page_type, uint32_t uncompressed,
			   uint32_t compressed, uint32_t num_values, int encoding);

/* Append one RowGroup struct (an element of FileMetaData.row_groups). */
int pq_thrift__row_group(struct pq_buf *b, const struct pq_leaf *leaves, int ncols,
			 const struct pq_chunk *chunks, int64_t nrows, int ordinal);

/* Serialize FileMetaData; row_groups holds nrg serialized RowGroup structs. */
int pq_thrift__file_meta(struct pq_buf *b, const struct pq_leaf *leaves, int ncols,
			 int64_t nrows, const struct pq_buf *row_groups, uint32_t nrg,
			 const struct pq_kv *kv, int nkv, const char *created_by);

/* parquet_delta.c */
size_t pq_delta__bound(size_t n);
size_t pq_delta__encode(uint8_t *o, const uint64_t *v, size_t n);

#endif
