/* Query-string parameters of the JSON API: typed, strict parsing with errors that name the
 * parameter (they become HTTP 400).  Independent of the HTTP library so it is unit-tested. */
#ifndef PROBEX_SERVER_PARAMS_H
#define PROBEX_SERVER_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

typedef const char *(*params_get_fn)(void *ctx, const char *name);

struct params {
	params_get_fn get;
	void *ctx;
	const char *bad;	/* the parameter that failed */
	char msg[256];		/* why */
};

void params__init(struct params *p, params_get_fn get, void *ctx);

/* Parse an unsigned decimal (Rust's u64::from_str rules: digits, optional leading '+').
 * Returns 0, or -EINVAL when s is not one, -ERANGE when it exceeds max. */
int params__parse_u64(const char *s, uint64_t max, uint64_t *out);

/* Each getter returns 0 on success (present or optional-and-absent) and -EINVAL with
 * p->bad/p->msg set on a missing required or malformed value. */
int params__u64(struct params *p, const char *name, bool required, uint64_t max, uint64_t *out,
		bool *present);
/* start_ns/end_ns, both required; end_ns < start_ns is an error naming end_ns. */
int params__range(struct params *p, uint64_t *start, uint64_t *end);
/* A count that must be in [1, max]. */
int params__count(struct params *p, const char *name, bool required, uint64_t max, uint64_t dflt,
		  uint64_t *out);
/* A required non-empty string. */
int params__string(struct params *p, const char *name, const char **out);

/* Split a comma-separated list in place-free fashion: calls fn for each non-empty item. */
void params__split(const char *s, void (*fn)(void *ctx, const char *item, unsigned int len),
		   void *ctx);

#endif
