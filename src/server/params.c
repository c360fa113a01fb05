#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "server/params.h"

void params__init(struct params *p, params_get_fn get, void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->get = get;
	p->ctx = ctx;
}

int params__parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '+')
		s++;
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (d > 9)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static int fail(struct params *p, const char *name, const char *fmt, const char *arg)
{
	p->bad = name;
	snprintf(p->msg, sizeof(p->msg), fmt, name, arg);
	return -EINVAL;
}

int params__u64(struct params *p, const char *name, bool required, uint64_t max, uint64_t *out,
		bool *present)
{
	const char *s = p->get(p->ctx, name);
	char lim[32];
	int err;

	if (present)
		*present = s != NULL;
	if (!s)
		return required ? fail(p, name, "missing parameter '%s'%s", "") : 0;
	err = params__parse_u64(s, max, out);
	if (err == -ERANGE) {
		snprintf(lim, sizeof(lim), "%llu", (unsigned long long)max);
		return fail(p, name, "parameter '%s' is out of range (maximum %s)", lim);
	}
	if (err)
		return fail(p, name, "parameter '%s' must be a non-negative integer%s", "");
	return 0;
}

int params__range(struct params *p, uint64_t *start, uint64_t *end)
{
	if (params__u64(p, "start_ns", true, UINT64_MAX, start, NULL) ||
	    params__u64(p, "end_ns", true, UINT64_MAX, end, NULL))
		return -EINVAL;
	if (*end < *start)
		return fail(p, "end_ns", "parameter '%s' must be >= start_ns%s", "");
	return 0;
}

int params__count(struct params *p, const char *name, bool required, uint64_t max, uint64_t dflt,
		  uint64_t *out)
{
	bool present;

	*out = dflt;
	if (params__u64(p, name, required, max, out, &present))
		return -EINVAL;
	if (present && *out == 0)
		return fail(p, name, "parameter '%s' must be > 0%s", "");
	return 0;
}

int params__string(struct params *p, const char *name, const char **out)
{
	const char *s = p->get(p->ctx, name);

	if (!s)
		return fail(p, name, "missing parameter '%s'%s", "");
	if (!*s)
		return fail(p, name, "parameter '%s' must not be empty%s", "");
	*out = s;
	return 0;
}

void params__split(const char *s, void (*fn)(void *ctx, const char *item, unsigned int len),
		   void *ctx)
{
	while (*s) {
		const char *c = strchr(s, ',');
		size_t len = c ? (size_t)(c - s) : strlen(s);

		if (len)
			fn(ctx, s, (unsigned int)len);
		s += len + (c ? 1 : 0);
	}
}
