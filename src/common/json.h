/* A small JSON writer into a growing buffer: commas and nesting handled, strings escaped
 * (control characters as \n, \r, \t or \uXXXX, invalid UTF-8 replaced by U+FFFD), so
 * every response is valid JSON whatever bytes a trace holds. */
#ifndef PROBEX_COMMON_JSON_H
#define PROBEX_COMMON_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/utf8.h"

#define JSON_MAX_DEPTH 32

typedef void (*json_put_fn)(void *ctx, const char *s, size_t n);

/* The one JSON string escaper (the writer below and strbuf__add_json_str use it): s[0..n)
 * as a string body without quotes, handed to put in pieces.  Inline so that put inlines. */
static inline void json__escape(const char *str, size_t n, json_put_fn put, void *ctx)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0, l;
	char esc[6] = { '\\', 'u', '0', '0' };

	while (i < n) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i++;
			run++;
			continue;
		}
		if (run)
			put(ctx, str + i - run, run);
		run = 0;
		switch (c) {
		case '"': put(ctx, "\\\"", 2); i++; continue;
		case '\\': put(ctx, "\\\\", 2); i++; continue;
		case '\n': put(ctx, "\\n", 2); i++; continue;
		case '\r': put(ctx, "\\r", 2); i++; continue;
		case '\t': put(ctx, "\\t", 2); i++; continue;
		default: break;
		}
		if (c < 0x20) {
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			put(ctx, esc, 6);
			i++;
		} else if ((l = utf8__seq_len(s + i, n - i))) {
			put(ctx, str + i, l);
			i += l;
		} else {
			put(ctx, "\xef\xbf\xbd", 3);	/* U+FFFD for each invalid byte */
			i++;
		}
	}
	if (run)
		put(ctx, str + i - run, run);
}

struct json {
	char *buf;
	size_t len, cap;
	bool oom;			/* an allocation failed: the output is unusable */
	int depth;
	bool first[JSON_MAX_DEPTH];	/* no element written yet at this depth */
	bool after_key;			/* the next value completes a key: no comma */
	/* Spilling (json__spill): past spill_at bytes the buffer goes to an unlinked temp
	 * file, spill_fd (-1 until then), and starts again. */
	size_t spill_at;
	int spill_fd;
	uint64_t spilled;
};

void json__init(struct json *j);
void json__free(struct json *j);
/* Hand the buffer to the caller (NUL-terminated); NULL if an allocation failed.  Not for
 * a spilled writer (json__steal_fd). */
char *json__steal(struct json *j, size_t *len);
/* Write the document to out as one line and free it: 0, or -ENOMEM if an allocation
 * failed on the way (nothing is written then). */
int json__print(struct json *j, FILE *out);
/* Keep at most about `at` bytes in memory: a response of every point of a 100M-event
 * trace (hundreds of MB of JSON) is written on to an unlinked file in $TMPDIR (or /tmp)
 * instead, which the kernel may page out, and is sent from there. */
void json__spill(struct json *j, size_t at);
/* After json__spill: true if the output went to a file, whose descriptor (positioned
 * nowhere in particular; the caller sends [0, *size)) goes to the caller in *fd; -1
 * there if writing it failed.  false: the output is in memory (json__steal). */
bool json__steal_fd(struct json *j, int *fd, uint64_t *size);

void json__obj_begin(struct json *j);
void json__obj_end(struct json *j);
void json__arr_begin(struct json *j);
void json__arr_end(struct json *j);
void json__key(struct json *j, const char *key);
void json__str(struct json *j, const char *s);
void json__strn(struct json *j, const char *s, size_t n);
void json__u64(struct json *j, uint64_t v);
void json__i64(struct json *j, int64_t v);
void json__bool(struct json *j, bool v);
void json__null(struct json *j);
void json__double(struct json *j, double v);
/* Insert already-valid JSON as one value. */
void json__raw(struct json *j, const char *s, size_t n);
/* Make room for n more bytes (a hint for large outputs). */
void json__reserve(struct json *j, size_t n);
/* Append bytes as they are, outside the JSON structure (the buffer as a plain writer). */
void json__bytes(struct json *j, const char *s, size_t n);

/* Append s escaped as a JSON string body (no quotes) to a raw byte buffer. */
void json__escape_into(struct json *j, const char *s, size_t n);

#endif
