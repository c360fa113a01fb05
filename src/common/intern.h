/* String interning: (bytes, length) → dense id, each string copied once.  The arrays are
 * what a dictionary writes (parquet/strtab.h makes them valid UTF-8 for Parquet). */
#ifndef PROBEX_COMMON_INTERN_H
#define PROBEX_COMMON_INTERN_H

#include <stdint.h>

struct intern {
	const char **strs;	/* id → bytes (owned copies, NUL-terminated) */
	uint32_t *lens;
	uint32_t n, cap;
	uint32_t *slots;	/* open addressing: id + 1, 0 = empty */
	uint32_t nslots;
};

/* Id of s[0..len) (added if new) or -ENOMEM. */
int64_t intern__add(struct intern *t, const char *s, uint32_t len);
void intern__free(struct intern *t);

#endif
