/* The kernel symbol table's insides, shared by ksym.c (tables read from kallsyms) and
 * ksym_lazy.c (tables filled by asking the kernel).  Not for other users: see ksym.h. */
#ifndef PROBEX_SYMBOLIZE_KSYM_PRIV_H
#define PROBEX_SYMBOLIZE_KSYM_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "common/bigmem.h"
#include "symbolize/ksym.h"

struct ksym {
	unsigned long long addr, end;	/* [addr, end) is attributed to this symbol */
	uint32_t label;			/* offset in ksyms.pool */
	uint32_t module;		/* offset of the module name in pool, 0 for the core kernel */
	uint16_t rank;			/* among symbols at one address, lowest wins (then the
					 * first listed: labels are stored in input order) */
	bool terminator;		/* end-of-text marker: nothing lies past it */
	bool unknown;			/* lazy table: an address the kernel could not name */
};

struct ksyms {
	struct ksym *syms;		/* in symbuf */
	size_t n;
	char *pool;			/* in poolbuf: labels and module names; offset 0 is "" */
	size_t pool_len;
	struct bigmem_buf symbuf, poolbuf;
	ksyms_lookup_fn lookup;		/* lazy table: names asked for by address */
	void *lookup_ctx;
	void (*lookup_free)(void *ctx);
};

struct ksyms_parse {
	bool nonzero;			/* any address, text or not, is nonzero */
	bool unsorted;			/* kallsyms comes sorted; other files may not */
	uint32_t mod;			/* pool offset of the current run's module name */
	char mod_name[64];
};

/* Append "a" or "a [b]" (b may be NULL) to the pool; *off gets its offset. */
int ksyms__pool_add(struct ksyms *k, const char *a, size_t alen, const char *b, size_t blen,
		    uint32_t *off);
/* A new last symbol at addr labelled "name" or "name [mod]" (the table is sorted later).
 * *out stays valid until the next push. */
int ksyms__push(struct ksyms *k, struct ksyms_parse *ps, unsigned long long addr,
		const char *name, size_t name_len, const char *mod, size_t mod_len,
		struct ksym **out);
/* Sort by address, keeping a sorted prefix in place. */
void ksyms__sort(struct ksym *syms, size_t n);
/* The last symbol starting at or below addr, or NULL. */
const struct ksym *ksyms__floor(const struct ksyms *k, unsigned long long addr);

#endif
