/* Parquet STRING dictionaries: interned strings (common/intern.h), each made valid UTF-8. */
#ifndef PROBEX_PARQUET_STRTAB_H
#define PROBEX_PARQUET_STRTAB_H

#include <stdint.h>

#include "common/intern.h"

/* Id of s[0..len) (added if new) or negative errno.  Stored strings are valid UTF-8:
 * invalid bytes become U+FFFD (so two names differing only there share an id).  Free the
 * table with intern__free. */
int64_t strtab__intern(struct intern *t, const char *s, uint32_t len);

#endif
