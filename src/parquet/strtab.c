#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "parquet/strtab.h"

/* Parquet STRING values must be UTF-8 (DuckDB refuses a whole file over one bad value),
 * but comm, executed file names and symbol or path labels are arbitrary bytes: each byte
 * that does not start a valid sequence becomes U+FFFD, as the viewer's JSON does. */
int64_t strtab__intern(struct intern *t, const char *s, uint32_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t i = 0, k = 0;
	int64_t id;
	char *fixed;

	while (i < len && u[i] < 0x80)
		i++;
	for (size_t l; i < len; i += (uint32_t)l)
		if (!(l = utf8__seq_len(u + i, len - i)))
			break;
	if (i == len)
		return intern__add(t, s, len);
	if (len > (UINT32_MAX - 1) / 3)
		return -EINVAL;
	fixed = malloc((size_t)len * 3 + 1);
	if (!fixed)
		return -ENOMEM;
	for (i = 0; i < len;) {
		size_t l = utf8__seq_len(u + i, len - i);

		if (l) {
			memcpy(fixed + k, u + i, l);
			k += (uint32_t)l;
			i += (uint32_t)l;
		} else {
			memcpy(fixed + k, "\xef\xbf\xbd", 3);
			k += 3;
			i++;
		}
	}
	id = intern__add(t, fixed, k);
	free(fixed);
	return id;
}
