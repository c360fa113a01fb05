/* Fast row appends into a DuckDB table through data chunks (the per-value appender
 * calls cost too much at millions of rows).  Every cell starts NULL; setters fill it. */
#ifndef PROBEX_TRACE_ROWBUF_H
#define PROBEX_TRACE_ROWBUF_H

#include <duckdb.h>
#include <stdbool.h>
#include <stdint.h>

enum col_type { COL_U8, COL_U32, COL_I32, COL_U64, COL_I64, COL_BOOL, COL_STR };

struct col_def {
	const char *name;
	enum col_type type;
};

struct rowbuf;

/* CREATE TABLE name (cols...) and open an appender on it. */
int rowbuf__open(struct rowbuf **rb, duckdb_connection con, const char *table,
		 const struct col_def *cols, int ncols);
void rowbuf__u64(struct rowbuf *rb, int col, uint64_t v);	/* U8/U32/U64 */
void rowbuf__i64(struct rowbuf *rb, int col, int64_t v);	/* I32/I64 */
void rowbuf__bool(struct rowbuf *rb, int col, bool v);
void rowbuf__str(struct rowbuf *rb, int col, const char *s, uint32_t len);
/* Finish the current row (appending a full chunk when needed). */
int rowbuf__next(struct rowbuf *rb);
uint64_t rowbuf__rows(const struct rowbuf *rb);
/* Append what is pending, close the appender, free.  Returns the first error. */
int rowbuf__close(struct rowbuf *rb);

#endif
