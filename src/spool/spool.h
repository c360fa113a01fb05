/* The spool: raw kernel records appended during recording, read back at finalization.
 *
 * Nothing is parsed on the hot path: the consumer copies records verbatim.  The file
 * starts with a header carrying the session facts (so a spool left by a killed probex
 * can still become a trace: `probex recover`), then items:
 *     u32 len (payload bytes), u16 tag, u16 reserved, payload, zero padding to 8 bytes. */
#ifndef PROBEX_SPOOL_SPOOL_H
#define PROBEX_SPOOL_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SPOOL_MAGIC	"PRBXSPL1"
#define SPOOL_VERSION	6

/* A recording to OUTPUT spools into OUTPUT SPOOL_SUFFIX. */
#define SPOOL_SUFFIX	".probex-spool"

enum spool_tag {
	SPOOL_BPF = 1,		/* a struct rec_* from the ring buffer */
	SPOOL_PERF = 2,		/* a perf side-band record (PERF_RECORD_MMAP2, LOST, ...) */
	SPOOL_SESSION = 3,	/* JSON object: session facts known at start */
	SPOOL_END = 4,		/* JSON object: counters and status known at the end */
	SPOOL_PERFMAP = 5,	/* struct spool_perfmap + bytes of a process's /tmp/perf-PID.map */
	SPOOL_SIDE_BPF = 6,	/* a rec_fork kept for the address spaces only (not a row) */
	SPOOL_INDEX = 7,	/* the last item of a clean close: see spool_map__index */
	SPOOL_PYCODE = 8,	/* struct spool_pycode: a CPython code object, read while it lived */
};

/* The index's payload: the file offsets (u64, ascending) of every item but the rows'
 * SPOOL_BPF records (session, end, side-band, forks, JIT maps: what finalize reads before
 * the rows), then its own offset (u64) and this magic, which end the file. */
#define SPOOL_INDEX_MAGIC "PRBXIDX1"

/* New bytes of a JIT map, copied while its process lives (runtimes delete them). */
struct spool_perfmap {
	uint32_t tgid;
	uint32_t _pad;
	uint64_t ts;		/* CLOCK_MONOTONIC when copied: which address space it names */
	uint64_t off;		/* where the bytes were in the file */
};

/* A code object of a CPython process (record/pycode.c), followed by its name (the
 * qualified name from 3.11), file name (UTF-8, no NUL) and line table bytes. */
struct spool_pycode {
	uint32_t tgid;
	uint16_t version;	/* 0x030b: 3.11 */
	uint16_t flags;		/* PYCODE_* */
	uint64_t code;		/* its address */
	uint64_t epoch;		/* the exec (CLOCK_MONOTONIC) of the image it belongs to; 0: before */
	int32_t firstlineno;
	uint16_t adaptive;	/* 3.11+: offset of its instructions in the object */
	uint16_t name_len;
	uint16_t file_len;
	uint16_t _pad;
	uint32_t table_len;
	uint32_t fp;		/* its fingerprint (py_code_fp) when read */
	uint32_t _pad2;
};

#define PYCODE_BAD	0x1	/* unreadable or no code object: no name */
#define PYCODE_NO_LINES	0x2	/* named, but its line table was unreadable */
/* Not a code object: the process's interpreter, whose _PyEval_EvalFrameDefault spans
 * [code, code + table_len) (no bytes follow). */
#define PYCODE_INTERP	0x4

/* Header bytes 9..15: ring mode (--ring).  Byte 9 is 1 and bytes 12..15 the segment size;
 * from the first segment boundary after the session item on, no item crosses a boundary,
 * and a zero item header means "nothing more in this segment" (padding, or a segment
 * whose space was given back to the file system with a punched hole). */
#define SPOOL_HDR_RING		9
#define SPOOL_HDR_SEG		12

struct spool_item {
	uint16_t tag;
	uint32_t len;
	const void *data;	/* valid until the next spool_reader__next() */
	uint64_t off;		/* spool_map only: file offset of the item (its header) */
};

struct spool_writer;
struct spool_reader;

/* Create (O_EXCL) the spool at path.  Negative errno on failure. */
int spool_writer__open(struct spool_writer **w, const char *path);
/* Buffered append; the first write error is sticky and returned from every later call. */
int spool_writer__append(struct spool_writer *w, uint16_t tag, const void *data, uint32_t len);
int spool_writer__flush(struct spool_writer *w);
unsigned long long spool_writer__bytes(const struct spool_writer *w);
/* Flight-recorder mode from here on: keep only the most recent ~keep bytes of items, in
 * segments of keep / 8 (at least 1 MiB) whose oldest is punched out as new ones fill. */
int spool_writer__set_ring(struct spool_writer *w, uint64_t keep);
/* As append; in ring mode a copy is also kept in memory and, if its segment is dropped,
 * written again under keep_tag at close (what finalize needs of the past: mappings, forks). */
int spool_writer__append_side(struct spool_writer *w, uint16_t tag, const void *data, uint32_t len,
			      uint16_t keep_tag);
/* Write the index (not in ring mode), flush and close (not fsync: the spool is read back
 * at once); returns the first error seen. */
int spool_writer__close(struct spool_writer *w);

/* Whole-file read access without copies: items point into a read-only mapping.  The pages
 * behind the cursor are dropped from the process (not from the page cache) as it moves,
 * so a pass over any size of spool holds at most SPOOL_MAP_TRIM bytes of it resident;
 * pointers stay valid (a dropped page is read again on access). */
struct spool_map {
	const unsigned char *base;
	size_t size, off, trimmed;
	size_t populated;	/* pages mapped ahead up to here (MADV_POPULATE_READ) */
	uint32_t seg;		/* ring mode: segment size; 0 = a plain spool */
};

#define SPOOL_MAP_TRIM	(32u << 20)
/* Pages are mapped this far ahead of the cursor in one call: a fault per page costs
 * several microseconds in a VM, and records with stack copies are 8 KiB apart. */
#define SPOOL_MAP_AHEAD	(4u << 20)

int spool_map__open(struct spool_map *m, const char *path);
/* The index a clean close wrote: *n offsets at *offs (in the mapping), or *n = 0 when there
 * is none (a killed writer, ring mode, an older probex) or it does not check out (every
 * entry a whole item before it, ascending). */
void spool_map__index(const struct spool_map *m, const uint64_t **offs, size_t *n);
/* The item at off, checked to lie whole in the file: 1, or -EBADMSG. */
int spool_map__item_at(const struct spool_map *m, uint64_t off, struct spool_item *item);
/* As spool_reader__next; item data stays valid until spool_map__close. */
int spool_map__next(struct spool_map *m, struct spool_item *item);
void spool_map__rewind(struct spool_map *m);
void spool_map__close(struct spool_map *m);

/* Random reads of items by offset (spool_item.off) from a read-only mapping of the file,
 * of which at most SPOOL_WINDOWS windows of SPOOL_WINDOW bytes are resident (mapped in
 * one call each, the least recently used dropped): SPOOL_WINDOWS_BYTES of memory however
 * far apart the reads are, no copy, and no fault per page. */
#define SPOOL_WINDOW		(4u << 20)
#define SPOOL_WINDOWS		8u
#define SPOOL_WINDOWS_BYTES	((size_t)SPOOL_WINDOW * SPOOL_WINDOWS)
#define SPOOL_ITEM_MAX		(64u << 10)	/* the most of an item one read returns */

struct spool_blocks;

int spool_blocks__open(struct spool_blocks **b, const char *path);
/* The payload of the item at off, at most max bytes of it (max <= SPOOL_ITEM_MAX):
 * *data valid until the next call, *len the item's full payload length.  -EIO when the
 * file no longer holds a whole item there. */
int spool_blocks__item(struct spool_blocks *b, uint64_t off, uint32_t max, const void **data,
		       uint32_t *len);
void spool_blocks__close(struct spool_blocks *b);

int spool_reader__open(struct spool_reader **r, const char *path);
/* 1 with *item filled, 0 at a clean end, -EBADMSG on a torn tail (a killed writer): the
 * items before it are still good; other negative errno on I/O errors. */
int spool_reader__next(struct spool_reader *r, struct spool_item *item);
void spool_reader__close(struct spool_reader *r);

#endif
