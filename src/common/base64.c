#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *base64__encode(const void *data, size_t len)
{
	const unsigned char *p = data;
	char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < len ? p[i + 2] : 0);

		*o++ = alphabet[v >> 18];
		*o++ = alphabet[(v >> 12) & 63];
		*o++ = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
		*o++ = i + 2 < len ? alphabet[v & 63] : '=';
	}
	*o = 0;
	return out;
}

static int value(char c)
{
	const char *p = c ? strchr(alphabet, c) : NULL;

	return p ? (int)(p - alphabet) : -1;
}

void *base64__decode(const char *s, size_t *len)
{
	size_t n = strlen(s);
	unsigned char *out, *o;

	if (n % 4)
		return NULL;
	out = malloc(n / 4 * 3 + 1);
	if (!out)
		return NULL;
	o = out;
	for (size_t i = 0; i < n; i += 4) {
		int a = value(s[i]), b = value(s[i + 1]);
		int c = s[i + 2] == '=' ? 0 : value(s[i + 2]);
		int d = s[i + 3] == '=' ? 0 : value(s[i + 3]);

		if (a < 0 || b < 0 || c < 0 || d < 0 || (s[i + 2] == '=' && s[i + 3] != '=') ||
		    ((s[i + 2] == '=' || s[i + 3] == '=') && i + 4 != n)) {
			free(out);
			return NULL;
		}
		*o++ = (unsigned char)(a << 2 | b >> 4);
		if (s[i + 2] != '=')
			*o++ = (unsigned char)((b & 15) << 4 | c >> 2);
		if (s[i + 3] != '=')
			*o++ = (unsigned char)((c & 3) << 6 | d);
	}
	*len = (size_t)(o - out);
	return out;
}
