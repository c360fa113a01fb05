/* Lazy kernel symbol tables: empty at first, filled by asking a lookup function (the
 * kernel's own "%pS", see record/kresolve.c) for the addresses stacks hold. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/ksym.h"
#include "symbolize/ksym_priv.h"

/* An address the table already answers for: inside a symbol's extent, or one the
 * kernel could not name when asked. */
static bool ksyms__covered(const struct ksyms *k, unsigned long long addr)
{
	const struct ksym *s = ksyms__floor(k, addr);

	return s && (s->unknown ? s->addr == addr : addr < s->end);
}

struct ksyms *ksyms__new_lazy(ksyms_lookup_fn lookup, void *ctx, void (*ctx_free)(void *ctx))
{
	struct ksyms *k = calloc(1, sizeof(*k));
	uint32_t empty;

	if (!k || ksyms__pool_add(k, "", 0, NULL, 0, &empty)) {
		free(k);
		errno = ENOMEM;
		return NULL;
	}
	k->lookup = lookup;
	k->lookup_ctx = ctx;
	k->lookup_free = ctx_free;
	return k;
}

/* "func+0xoff/0xsize" or "func+0xoff/0xsize [module]", as the kernel prints %pS, for
 * the address addr: the symbol's extent and label.  Anything else (the kernel prints the
 * bare address when it has no symbol) is false. */
static bool ksyms__parse_ps(const char *s, unsigned long long addr, struct ksym_add *out,
			    char *name, size_t name_cap, char *mod, size_t mod_cap)
{
	const char *plus = strstr(s, "+0x"), *p, *close;
	unsigned long long off, size;
	char *end;

	if (!plus || plus == s || (size_t)(plus - s) >= name_cap)
		return false;
	errno = 0;
	off = strtoull(plus + 1, &end, 16);
	if (errno || *end != '/' || strncmp(end + 1, "0x", 2))
		return false;
	size = strtoull(end + 1, &end, 16);
	if (errno || off >= size || off > addr || addr - off > ~0ULL - size)
		return false;
	memcpy(name, s, plus - s);
	name[plus - s] = '\0';
	mod[0] = '\0';
	if (*end) {
		p = end;
		close = strchr(p, ']');
		if (p[0] != ' ' || p[1] != '[' || !close || close[1] || close == p + 2 ||
		    (size_t)(close - p - 2) >= mod_cap)
			return false;
		memcpy(mod, p + 2, close - p - 2);
		mod[close - p - 2] = '\0';
	}
	*out = (struct ksym_add){ .addr = addr - off, .len = size, .label = name,
				  .module = mod[0] ? mod : NULL };
	return true;
}

/* One batch of addresses the table does not cover: asked for, and each answer added, as
 * its symbol's extent or, when the kernel has no name for it, as that address alone. */
static int ksyms__resolve_batch(struct ksyms *k, const uint64_t *addrs, size_t n,
				char *labels)
{
	struct ksyms_parse ps = { 0 };
	char name[KSYMS_LABEL_MAX], mod[64];
	int err = k->lookup(k->lookup_ctx, addrs, n, labels, KSYMS_LABEL_MAX);

	if (err)
		return err;
	for (size_t i = 0; i < n && !err; i++) {
		char *s = labels + i * KSYMS_LABEL_MAX;
		struct ksym_add a;
		struct ksym *sym;

		s[KSYMS_LABEL_MAX - 1] = '\0';	/* whatever the lookup wrote */
		if (ksyms__parse_ps(s, addrs[i], &a, name, sizeof(name), mod, sizeof(mod))) {
			err = ksyms__push(k, &ps, a.addr, a.label, strlen(a.label), a.module,
					  a.module ? strlen(a.module) : 0, &sym);
			if (!err)
				sym->end = a.addr + a.len;
		} else {
			err = ksyms__push(k, &ps, addrs[i], "", 0, NULL, 0, &sym);
			if (!err) {
				sym->end = addrs[i] + 1;
				sym->unknown = true;
			}
		}
	}
	ksyms__sort(k->syms, k->n);
	return err;
}

int ksyms__resolve(struct ksyms *k, const uint64_t *addrs, size_t n)
{
	uint64_t batch[KSYMS_RESOLVE_BATCH];
	char *labels = NULL;
	size_t m = 0;
	int err = 0;

	if (!k || !k->lookup)
		return 0;
	for (size_t i = 0; i < n && !err; i++) {
		bool seen = false;

		if (ksyms__covered(k, addrs[i]))
			continue;
		for (size_t j = 0; j < m && !seen; j++)
			seen = batch[j] == addrs[i];
		if (seen)
			continue;
		/* Most stacks hold no new address: the answers' buffer only when one does. */
		if (!labels && !(labels = malloc(KSYMS_RESOLVE_BATCH * KSYMS_LABEL_MAX)))
			return -ENOMEM;
		batch[m++] = addrs[i];
		if (m == KSYMS_RESOLVE_BATCH) {
			err = ksyms__resolve_batch(k, batch, m, labels);
			m = 0;
		}
	}
	if (!err && m)
		err = ksyms__resolve_batch(k, batch, m, labels);
	free(labels);
	return err;
}
