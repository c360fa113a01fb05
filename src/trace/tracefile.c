#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "parquet/footer_check.h"
#include "trace/duck.h"
#include "trace/schema.h"
#include "trace/tracefile.h"

const char *trace_file__cell(void *vector_data, uint64_t row, uint32_t *len)
{
	duckdb_string_t *s = (duckdb_string_t *)vector_data + row;

	*len = duckdb_string_t_length(*s);
	return duckdb_string_t_data(s);
}

/* The footer (its length, then "PAR1", end the file) walked before DuckDB reads it. */
static int check_footer(int fd, off_t size)
{
	unsigned char len4[4];
	uint32_t len;
	uint8_t *buf;
	int err;

	if (pread(fd, len4, 4, size - 8) != 4)
		return -EIO;
	len = (uint32_t)len4[0] | (uint32_t)len4[1] << 8 | (uint32_t)len4[2] << 16 |
	      (uint32_t)len4[3] << 24;
	if (!len || len > (uint64_t)size - 12)
		return -EBADMSG;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	err = pread(fd, buf, len, size - 8 - len) == (ssize_t)len ? parquet__check_footer(buf, len)
								    : -EIO;
	free(buf);
	return err;
}

/* The Parquet magic at both ends: a quick, clear answer for non-Parquet and truncated
 * files before any reader runs. */
static int check_magic(const char *path)
{
	unsigned char head[4], tail[4];
	struct stat st;
	int fd, err = 0;

	/* O_NONBLOCK: opening a FIFO would otherwise wait forever for a writer, with the
	 * stop signals already blocked (no effect on regular files). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		err = -errno;
		log__error("%s: cannot open: %s", path, strerror(errno));
		return err;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		log__error("%s: not a regular file", path);
		err = -EINVAL;
	} else if (st.st_size < 12 || pread(fd, head, 4, 0) != 4 || memcmp(head, "PAR1", 4)) {
		log__error("%s: not a Parquet file (no PAR1 magic at the start)", path);
		err = -EINVAL;
	} else if (pread(fd, tail, 4, st.st_size - 4) != 4 || memcmp(tail, "PAR1", 4)) {
		log__error("%s: truncated Parquet file (no footer): was the recording interrupted?", path);
		err = -EINVAL;
	} else if (check_footer(fd, st.st_size)) {
		log__error("%s: unreadable Parquet metadata: a length in the footer does not fit the file", path);
		err = -EINVAL;
	}
	close(fd);
	return err;
}

/* Runs SQL (printf-style) that returns two VARCHAR columns and calls fn for each row;
 * logs "path: what: error" when DuckDB fails. */
typedef void (*pair_fn)(void *ctx, const char *a, uint32_t alen, const char *b, uint32_t blen);

static int __attribute__((format(printf, 6, 7)))
each_pair(duckdb_connection con, const struct trace_file *tf, const char *what, pair_fn fn,
	  void *ctx, const char *fmt, ...)
{
	duckdb_data_chunk chunk;
	duckdb_result res;
	va_list ap;
	char *sql;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&sql, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	if (duckdb_query(con, sql, &res) == DuckDBError) {
		log__error("%s: %s: %s", tf->path, what, duckdb_result_error(&res));
		duckdb_destroy_result(&res);
		free(sql);
		return -EINVAL;
	}
	free(sql);
	while ((chunk = duckdb_fetch_chunk(res))) {
		idx_t rows = duckdb_data_chunk_get_size(chunk);
		void *as = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 0));
		void *bs = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 1));

		for (idx_t i = 0; i < rows; i++) {
			uint32_t al, bl;
			const char *a = trace_file__cell(as, i, &al), *b = trace_file__cell(bs, i, &bl);

			fn(ctx, a, al, b, bl);
		}
		duckdb_destroy_data_chunk(&chunk);
	}
	duckdb_destroy_result(&res);
	return 0;
}

static bool name_is(const char *s, uint32_t len, const char *name)
{
	return len == strlen(name) && !memcmp(s, name, len);
}

struct meta {
	char freq[64], format[128];
	bool have_freq, have_format;
};

/* The first value of each key counts. */
static void meta_pair(void *ctx, const char *k, uint32_t kl, const char *v, uint32_t vl)
{
	struct meta *m = ctx;

	if (name_is(k, kl, META_SAMPLE_FREQ_HZ) && !m->have_freq) {
		snprintf(m->freq, sizeof(m->freq), "%.*s", (int)vl, v);
		m->have_freq = true;
	} else if (name_is(k, kl, META_STACK_FORMAT) && !m->have_format) {
		snprintf(m->format, sizeof(m->format), "%.*s", (int)vl, v);
		m->have_format = true;
	}
}

/* A metadata value for an error line: bytes other than printable ASCII as \xNN, so the
 * line stays text (and names its file) whatever a damaged file holds. */
static const char *printable(const char *s, char *out, size_t n)
{
	size_t o = 0;

	for (; *s && o + 5 < n; s++) {
		unsigned char c = (unsigned char)*s;

		o += (size_t)snprintf(out + o, n - o, c >= 0x20 && c < 0x7f ? "%c" : "\\x%02x", c);
	}
	out[o] = 0;
	return out;
}

static int read_metadata(duckdb_connection con, struct trace_file *tf)
{
	char shown[4 * sizeof(((struct meta *)0)->format) + 1];
	struct meta m = { 0 };
	const char *freq = m.freq;
	int err;

	if ((err = each_pair(con, tf, "unreadable Parquet metadata", meta_pair, &m,
			     "SELECT key, value FROM parquet_kv_metadata(%s)", tf->literal)))
		return err;
	err = -EINVAL;
	/* The 0.1 viewer's checks and wording, prefixed with the file. */
	if (!m.have_freq) {
		log__error("%s: required parquet metadata key '%s' missing (not a probex trace?)",
			   tf->path, META_SAMPLE_FREQ_HZ);
	} else if (!*freq || strspn(freq, "0123456789") != strlen(freq) || strlen(freq) > 19) {
		log__error("%s: invalid '%s' metadata value: '%s'", tf->path, META_SAMPLE_FREQ_HZ,
			   printable(freq, shown, sizeof(shown)));
	} else if (!(tf->sample_freq_hz = strtoull(freq, NULL, 10))) {
		log__error("%s: metadata '%s' must be > 0", tf->path, META_SAMPLE_FREQ_HZ);
	} else if (!m.have_format) {
		log__error("%s: required parquet metadata key '%s' missing", tf->path, META_STACK_FORMAT);
	} else if (strcmp(m.format, META_STACK_FORMAT_V1)) {
		log__error("%s: metadata '%s' must be '%s', got '%s'", tf->path, META_STACK_FORMAT,
			   META_STACK_FORMAT_V1, printable(m.format, shown, sizeof(shown)));
	} else {
		err = 0;
	}
	return err;
}

/* DuckDB's names for what the viewer can read in a column of this schema type; 0.1 files
 * use other integer widths (cpu is UInt8 there), so any integer passes. */
static bool type_ok(enum pq_type type, const char *duck)
{
	static const char *const ints[] = { "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT",
					    "USMALLINT", "UINTEGER", "UBIGINT", NULL };

	switch (type) {
	case PQ_STRING:
		return !strcmp(duck, "VARCHAR");
	case PQ_STRING_LIST:
		return !strcmp(duck, "VARCHAR[]");
	case PQ_BOOL:
		return !strcmp(duck, "BOOLEAN");
	default:
		for (int i = 0; ints[i]; i++)
			if (!strcmp(duck, ints[i]))
				return true;
	}
	return false;
}

static const char *type_desc(enum pq_type type)
{
	return type == PQ_STRING ? "a string" : type == PQ_STRING_LIST ? "a list of strings" :
	       type == PQ_BOOL ? "a boolean" : "an integer";
}

struct columns {
	char types[TC__COUNT][48];
	bool seen[TC__COUNT], legacy;
};

static void column_pair(void *ctx, const char *name, uint32_t nl, const char *ty, uint32_t tl)
{
	struct columns *c = ctx;

	if (name_is(name, nl, "stack_frames") || name_is(name, nl, "proc_maps_snapshot"))
		c->legacy = true;
	for (int w = 0; w < TC__COUNT; w++)
		if (name_is(name, nl, trace_schema[w].name)) {
			c->seen[w] = true;
			snprintf(c->types[w], sizeof(c->types[w]), "%.*s", (int)tl, ty);
		}
}

static int check_columns(duckdb_connection con, struct trace_file *tf)
{
	struct columns c = { 0 };
	const bool *seen = c.seen;
	int err;

	if ((err = each_pair(con, tf, "unreadable Parquet schema", column_pair, &c,
			     "DESCRIBE SELECT * FROM %s", tf->source)))
		return err;

	if (!seen[TC_STACK_TRACE]) {
		log__error("%s: missing required stack_trace column; regenerate it with a current probex",
			   tf->path);
		return -EINVAL;
	}
	if (c.legacy) {
		log__error("%s: uses legacy stack columns; regenerate it with a current probex", tf->path);
		return -EINVAL;
	}
	/* 0.1 files lack probex's columns: those the viewer reads are optional. */
	for (int w = 0; w < TC__COUNT; w++) {
		const struct trace_column *col = &trace_schema[w];

		if (!col->viewer || (!seen[w] && !col->reference))
			continue;
		if (!seen[w]) {
			log__error("%s: missing column '%s' (not a probex trace?)", tf->path, col->name);
			return -EINVAL;
		}
		if (!type_ok(col->type, c.types[w])) {
			log__error("%s: column '%s' must be %s, got %s", tf->path, col->name,
				   type_desc(col->type), c.types[w]);
			return -EINVAL;
		}
	}
	tf->has_latency_ns = seen[TC_LATENCY];
	tf->has_stack_weight = seen[TC_WEIGHT];
	tf->has_argv = seen[TC_ARGV];
	tf->has_fd_path = seen[TC_FD_PATH];
	tf->has_stack_trace_id = seen[TC_STACK_TRACE_ID] && seen[TC_STACK_TRACE_FIRST];
	return 0;
}

int trace_file__open(const char *path, duckdb_connection con, struct trace_file *tf)
{
	size_t cap = strlen(path) * 2 + 32;
	int err;

	memset(tf, 0, sizeof(*tf));
	tf->path = path;
	err = check_magic(path);
	if (err)
		return err;
	tf->literal = malloc(cap);
	tf->source = malloc(cap + 16);
	if (!tf->literal || !tf->source) {
		trace_file__free(tf);
		return -ENOMEM;
	}
	/* The path comes from the command line, never from a request; DuckDB cannot bind
	 * a table function's argument, so it is quoted as a literal. */
	duck__quote(tf->literal, cap, path);
	snprintf(tf->source, cap + 16, "read_parquet(%s)", tf->literal);
	err = read_metadata(con, tf);
	if (!err)
		err = check_columns(con, tf);
	if (err)
		trace_file__free(tf);
	return err;
}

void trace_file__free(struct trace_file *tf)
{
	free(tf->literal);
	free(tf->source);
	tf->literal = tf->source = NULL;
}
