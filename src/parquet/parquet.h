/* A small, fast Parquet writer for columns that are already in memory.
 *
 * The trace rows are columnar, sorted and dictionary-coded in C by the time they are
 * written, so this writes them straight to Parquet: V1 data pages, PLAIN numbers,
 * dictionary-encoded strings, 3-level string lists, ZSTD pages, a format-2 footer with
 * logical types and min/max/null_count statistics.  DuckDB stays the reader.
 *
 * Usage: open, write_row_group() as many times as needed, close (or abort after an
 * error).  All functions return 0 or a negative errno; after the first error every
 * later call returns it again. */
#ifndef PROBEX_PARQUET_PARQUET_H
#define PROBEX_PARQUET_PARQUET_H

#include <stdbool.h>
#include <stdint.h>

enum pq_type {
	PQ_U8,		/* uint8_t  → INT32, INT(8, false)   (DuckDB UTINYINT) */
	PQ_U32,		/* uint32_t → INT32, INT(32, false)  (UINTEGER) */
	PQ_I32,		/* int32_t  → INT32, INT(32, true)   (INTEGER) */
	PQ_U64,		/* uint64_t → INT64, INT(64, false)  (UBIGINT) */
	PQ_I64,		/* int64_t  → INT64, INT(64, true)   (BIGINT) */
	PQ_BOOL,	/* bool     → BOOLEAN */
	PQ_STRING,	/* uint32_t string ids → BYTE_ARRAY STRING, dictionary-encoded */
	/* int32_t list ids → optional group NAME (LIST) { repeated group list {
	 * optional binary item (STRING) } }, items dictionary-encoded.  The child is named
	 * "item", as arrow-rs names it: Arrow readers take the list field's name from it. */
	PQ_STRING_LIST,
};

#define PQ_LIST_ITEM "item"

/* Every file also carries ARROW:schema (arrow_schema.c): each column's Arrow type as
 * arrow-rs reads it back — UInt8/UInt32/Int32/UInt64/Int64, Boolean, Utf8, and
 * List<"item": Utf8View, nullable> — nullable unless required. */
#define PQ_ARROW_SCHEMA_KEY "ARROW:schema"

struct pq_column_def {
	const char *name;
	enum pq_type type;
	bool required;		/* REQUIRED (never null) instead of OPTIONAL */
	bool delta;		/* PQ_U64/PQ_I64: DELTA_BINARY_PACKED (for sorted values) */
	bool dict;		/* PQ_U32: RLE_DICTIONARY of its values (few distinct ones, each
				 * below PQ_INT_DICT_LIMIT; a chunk with a larger one is PLAIN) */
};

#define PQ_INT_DICT_LIMIT (1u << 24)

/* id → string; ids index strs/lens.  Strings need no NUL terminator. */
struct pq_dict {
	const char *const *strs;
	const uint32_t *lens;
	uint32_t n;
};

/* list id → string ids items[offsets[id] .. offsets[id + 1]); offsets has n + 1 entries.
 * An item PQ_NULL_ITEM is a null element of its list. */
#define PQ_NULL_ITEM UINT32_MAX

struct pq_lists {
	const uint32_t *offsets;
	const uint32_t *items;
	uint32_t n;
};

struct pq_column_data {
	/* nrows values of the column's C type; PQ_STRING: uint32_t string ids;
	 * PQ_STRING_LIST: int32_t list ids */
	const void *values;
	/* nrows bytes, 0 = NULL; a NULL pointer means all valid (required columns must pass
	 * NULL).  For PQ_STRING_LIST a negative list id also means NULL. */
	const uint8_t *valid;
	const struct pq_dict *dict;	/* PQ_STRING, PQ_STRING_LIST; may be shared */
	const struct pq_lists *lists;	/* PQ_STRING_LIST only */
};

struct pq_kv {
	const char *key, *value;	/* value may be NULL */
};

struct pq_options {
	int zstd_level;		/* 0 → 1 */
	int threads;		/* columns encoded in parallel; 0 → 1 */
	uint32_t page_bytes;	/* target uncompressed data page size; 0 → 1 MiB */
};

struct pq_writer;

/* Create path (O_EXCL: -EEXIST if anything is there) and write the header magic.  cols is copied; opts may be NULL. */
int pq_writer__open(struct pq_writer **w, const char *path, const struct pq_column_def *cols,
		    int ncols, const struct pq_options *opts);

/* Encode and write one row group; cols has one entry per column, in open() order.
 * nrows == 0 writes nothing.  -EINVAL for ids out of range or nulls in a required column. */
int pq_writer__write_row_group(struct pq_writer *w, uint32_t nrows,
			       const struct pq_column_data *cols);

/* Write the footer with kv metadata, then ARROW:schema (replacing any in kv), fsync and
 * close; frees w.  On any error (now or earlier) the file is unlinked and the first error
 * returned. */
int pq_writer__close(struct pq_writer *w, const struct pq_kv *kv, int nkv);

/* Close and unlink after an error; frees w.  NULL is a no-op. */
void pq_writer__abort(struct pq_writer *w);

/* The encapsulated Arrow IPC Schema message for these columns (malloc'd, *len bytes, a
 * multiple of 8), or its base64 as the ARROW:schema value (malloc'd, NULL on error). */
int pq_arrow_schema__ipc(const struct pq_column_def *cols, int ncols, uint8_t **out, size_t *len);
char *pq_arrow_schema__base64(const struct pq_column_def *cols, int ncols);

#endif
