/* Growable string buffer with JSON string escaping; enough for metadata and messages. */
#ifndef PROBEX_COMMON_STRBUF_H
#define PROBEX_COMMON_STRBUF_H

#include <stddef.h>
#include <stdint.h>

struct strbuf {
	char *s;
	size_t len, cap;
	int err;	/* sticky -ENOMEM */
};

void strbuf__addf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf__add(struct strbuf *b, const char *s, size_t n);
/* sep, then v in lowercase hex without leading zeros (printf's "%c%" PRIx64, faster). */
void strbuf__add_hex(struct strbuf *b, char sep, uint64_t v);
/* Appends "..." escaped by json__escape (common/json.h). */
void strbuf__add_json_str(struct strbuf *b, const char *s);
void strbuf__free(struct strbuf *b);

#endif
