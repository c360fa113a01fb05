/* Standard base64 (RFC 4648, padded), for binary data in Parquet key-value metadata. */
#ifndef PROBEX_COMMON_BASE64_H
#define PROBEX_COMMON_BASE64_H

#include <stddef.h>

/* Returns a malloc'd NUL-terminated string, or NULL. */
char *base64__encode(const void *data, size_t len);
/* Returns a malloc'd buffer and its length, or NULL on bad input. */
void *base64__decode(const char *s, size_t *len);

#endif
