/* UTF-8 validation shared by the JSON and SVG writers (traces carry arbitrary bytes:
 * symbol names, comm; responses must not), and the White_Space trimming of flame labels. */
#ifndef PROBEX_COMMON_UTF8_H
#define PROBEX_COMMON_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length of the valid UTF-8 sequence at s (1–4), or 0 when it is not one. */
static inline size_t utf8__seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* The code point of the valid sequence of length len at s (len from utf8__seq_len). */
static inline uint32_t utf8__code_point(const unsigned char *s, size_t len)
{
	static const unsigned char lead_mask[5] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t cp = s[0] & lead_mask[len];

	for (size_t i = 1; i < len; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return cp;
}

/* Unicode's White_Space property (what Rust's char::is_whitespace and str::trim use). */
static inline int utf8__is_white_space(uint32_t cp)
{
	return (cp >= 0x09 && cp <= 0x0d) || cp == 0x20 || cp == 0x85 || cp == 0xa0 ||
	       cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
	       cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

/* Length of the White_Space character that starts at s[0] (0 if none or not UTF-8). */
static inline size_t utf8__space_at(const unsigned char *s, size_t n)
{
	size_t len = n ? utf8__seq_len(s, n) : 0;

	return len && utf8__is_white_space(utf8__code_point(s, len)) ? len : 0;
}

/* Length of the White_Space character that ends at s[n-1] (0 if none or not UTF-8). */
static inline size_t utf8__space_before(const unsigned char *s, size_t n)
{
	for (size_t len = 1; len <= 4 && len <= n; len++) {
		const unsigned char *p = s + n - len;

		if ((*p & 0xc0) != 0x80)
			return utf8__seq_len(p, len) == len ? utf8__space_at(p, len) : 0;
	}
	return 0;
}

#endif
