/* libFuzzer harness: HTTP parameters, from the raw query string to the JSON response.
 *
 * A real trace ($PROBEX_FUZZ_TRACE, loaded once by the viewer's own loader) is served by
 * the endpoint handlers exactly as server.c calls them, minus the socket.  The input is
 * "NAME?QUERY" (NAME after /api/); the query is decoded the way libmicrohttpd does.
 * Properties:
 *   - an unknown endpoint is a 404; otherwise the answer is 200 with strict JSON, or a
 *     400 whose message names the offending parameter — never a 500 on this clean trace;
 *   - the same request answered twice gives the same bytes (no state leaks between
 *     requests, nothing a request sends changes the data);
 *   - params__parse_u64 agrees with a reference parser on the raw input;
 *   - params__split yields exactly the non-empty comma-separated items. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "server/params.h"
#include "fuzz_common.h"

static struct viewer_state st;
/* Answers that read the data (the precomputed summary, and a count over the whole
 * DuckDB table): they must never change. */
#define COUNTS_ALL "start_ns=0&end_ns=18446744073709551615"
static char *summary0, *counts0;
static size_t summary0_len, counts0_len;

static void check_unchanged(const char *after_name, const char *after_q)
{
	const char *param;
	size_t len;
	char *body;
	int status;

	status = fz__request(&st, "summary", "", 0, &body, &len, &param);
	FZ_CHECK(status == 200 && len == summary0_len && !memcmp(body, summary0, len),
		 "the summary changed after /api/%s?%s", after_name, after_q);
	free(body);
	status = fz__request(&st, "event_type_counts", COUNTS_ALL, strlen(COUNTS_ALL), &body, &len, &param);
	FZ_CHECK(status == 200 && len == counts0_len && !memcmp(body, counts0, len),
		 "the event counts changed after /api/%s?%s", after_name, after_q);
	free(body);
}

static void unload(void)
{
	free(summary0);
	free(counts0);
	fz__unload(&st);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *trace = getenv("PROBEX_FUZZ_TRACE");
	const char *param;
	int stage;

	fz__init_process();
	if (!trace) {
		fprintf(stderr, "fuzz_params: set PROBEX_FUZZ_TRACE to a trace file to serve\n");
		exit(2);
	}
	if (fz__load(trace, &st, &stage)) {
		fprintf(stderr, "fuzz_params: cannot load %s\n", trace);
		exit(2);
	}
	if (fz__request(&st, "summary", "", 0, &summary0, &summary0_len, &param) != 200 ||
	    fz__request(&st, "event_type_counts", COUNTS_ALL, strlen(COUNTS_ALL), &counts0, &counts0_len,
			&param) != 200)
		exit(2);
	atexit(unload);
	return 0;
}

/* Reference for params__parse_u64: optional '+', then decimal digits only. */
static int ref_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	unsigned __int128 v = 0;
	size_t i = s[0] == '+';

	if (!s[i])
		return -1;
	for (; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
		if (v > UINT64_MAX)
			return -2;
	}
	if (v > max)
		return -2;
	*out = (uint64_t)v;
	return 0;
}

struct split_check {
	const char *s;
	size_t pos;	/* where the next item must start (after skipped commas) */
	unsigned int items;
};

static void on_item(void *ctx, const char *item, unsigned int len)
{
	struct split_check *c = ctx;

	FZ_CHECK(len > 0, "empty item");
	FZ_CHECK(!memchr(item, ',', len), "item with a comma");
	FZ_CHECK(item >= c->s + c->pos, "items out of order");
	for (const char *p = c->s + c->pos; p < item; p++)
		FZ_CHECK(*p == ',', "skipped a non-comma byte");
	FZ_CHECK(item[len] == ',' || item[len] == 0, "item does not end at a comma");
	c->pos = (size_t)(item - c->s) + len;
	c->items++;
}

static void check_scalars(const char *s)
{
	static const uint64_t maxes[] = { UINT64_MAX, UINT32_MAX, 10000, 0 };
	struct split_check c = { .s = s };
	unsigned int expect = 0;

	for (size_t i = 0; i < sizeof(maxes) / sizeof(maxes[0]); i++) {
		uint64_t got = 7, want = 7;
		int r = params__parse_u64(s, maxes[i], &got), e = ref_parse_u64(s, maxes[i], &want);

		FZ_CHECK((r == 0) == (e == 0), "parse_u64(\"%s\", %" PRIu64 ") = %d, reference %d", s, maxes[i], r, e);
		FZ_CHECK(r != 0 || got == want, "parse_u64(\"%s\") = %" PRIu64 ", want %" PRIu64, s, got, want);
		FZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE, "parse_u64 returned %d", r);
		FZ_CHECK(e != -2 || r == -ERANGE, "parse_u64(\"%s\"): out of range must be -ERANGE", s);
	}
	params__split(s, on_item, &c);
	for (size_t i = 0; s[i];) {
		size_t n = strcspn(s + i, ",");

		expect += n > 0;
		i += n + (s[i + n] == ',');
	}
	FZ_CHECK(c.items == expect, "split gave %u items, want %u", c.items, expect);
	for (const char *p = s + c.pos; *p; p++)
		FZ_CHECK(*p == ',', "split stopped early");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1), *name, *body = NULL, *again = NULL;
	size_t len = 0, len2 = 0, nlen;
	const char *q, *param, *param2;
	int status, status2;

	if (!in)
		abort();
	memcpy(in, data, size);
	in[size] = 0;
	check_scalars(in);

	q = memchr(in, '?', size);
	nlen = q ? (size_t)(q - in) : size;
	name = strndup(in, nlen);
	q = q ? q + 1 : in + size;
	fz__capture_begin();
	status = fz__request(&st, name, q, size - (size_t)(q - in), &body, &len, &param);
	status2 = fz__request(&st, name, q, size - (size_t)(q - in), &again, &len2, &param2);
	fz__capture_end();

	FZ_CHECK(status == 200 || status == 400 || status == 404, "/api/%s?%s: HTTP %d: %s", name, q, status,
		 body ? body : "");
	FZ_CHECK(status == status2 && len == len2 && (!len || !memcmp(body, again, len)),
		 "/api/%s?%s: two answers differ", name, q);
	if (status == 200)
		FZ_CHECK(fz__json_valid(body, len), "/api/%s?%s: invalid JSON: %.2000s", name, q, body);
	if (status == 400) {
		FZ_CHECK(param && *param, "/api/%s?%s: a 400 without the parameter: %s", name, q, body);
		FZ_CHECK(strstr(body, param), "/api/%s?%s: the message does not name '%s': %s", name, q, param, body);
	}
	free(body);
	free(again);
	/* Whatever was asked, the data served is unchanged. */
	if (status != 404)
		check_unchanged(name, q);
	free(name);
	free(in);
	return 0;
}
