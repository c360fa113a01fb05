#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/strbuf.h"

static int strbuf__grow(struct strbuf *b, size_t extra)
{
	size_t need = b->len + extra + 1, cap;
	char *n;

	if (b->err)
		return b->err;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	n = realloc(b->s, cap);
	if (!n)
		return b->err = -ENOMEM;
	b->s = n;
	b->cap = cap;
	return 0;
}

void strbuf__add(struct strbuf *b, const char *s, size_t n)
{
	if (strbuf__grow(b, n))
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

/* Formatted into the room left when it fits (once), else measured, grown, formatted again. */
void strbuf__addf(struct strbuf *b, const char *fmt, ...)
{
	size_t room;
	va_list ap;
	int n;

	if (strbuf__grow(b, 63))
		return;
	room = b->cap - b->len;
	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= room) {
		if (strbuf__grow(b, (size_t)n))
			return;
		va_start(ap, fmt);
		vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

void strbuf__add_hex(struct strbuf *b, char sep, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[17];
	int i = 17;

	if (strbuf__grow(b, 18))
		return;
	do {
		tmp[--i] = digits[v & 15];
		v >>= 4;
	} while (v);
	b->s[b->len++] = sep;
	memcpy(b->s + b->len, tmp + i, (size_t)(17 - i));
	b->len += (size_t)(17 - i);
	b->s[b->len] = 0;
}

static void put_cb(void *b, const char *s, size_t n)
{
	strbuf__add(b, s, n);
}

void strbuf__add_json_str(struct strbuf *b, const char *s)
{
	strbuf__add(b, "\"", 1);
	json__escape(s, strlen(s), put_cb, b);
	strbuf__add(b, "\"", 1);
}

void strbuf__free(struct strbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}
