/* String interning: (bytes, length) → dense id, with arrays shaped for struct pq_dict. */
#ifndef PROBEX_PARQUET_STRTAB_H
#define PROBEX_PARQUET_STRTAB_H

#include <stdint.h>

struct strtab {
	const char **strs;	/* id → bytes (owned copies, NUL-terminated) */
	uint32_t *lens;
	uint32_t n, cap;
	uint32_t *slots;	/* open addressing: id + 1, 0 = empty */
	uint32_t nslots;
};

/* Id of s[0..len) (added if new) or negative errno.  Stored strings are valid UTF-8:
 * invalid bytes become U+FFFD (so two names differing only there share an id). */
int64_t strtab__intern(struct strtab *t, const char *s, uint32_t len);
void strtab__free(struct strtab *t);

#endif
