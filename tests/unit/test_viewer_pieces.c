/* Pure pieces of the viewer: the JSON writer, parameter parsing, the bounded
 * distribution helpers, the binary searches and the radix sort. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bsearch.h"
#include "common/json.h"
#include "common/pack32.h"
#include "common/sort.h"
#include "common/sparse32.h"
#include "model/dist.h"
#include "server/params.h"

static char *done(struct json *j)
{
	char *s = json__steal(j, NULL);

	assert_non_null(s);
	return s;
}

static void test_json_structure(void **state)
{
	struct json j;
	char *s;

	json__init(&j);
	json__obj_begin(&j);
	json__key(&j, "a");
	json__arr_begin(&j);
	json__u64(&j, 0);
	json__u64(&j, UINT64_MAX);
	json__i64(&j, INT64_MIN);
	json__i64(&j, -5);
	json__null(&j);
	json__bool(&j, true);
	json__obj_begin(&j);
	json__obj_end(&j);
	json__arr_end(&j);
	json__key(&j, "b");
	json__double(&j, 0.5);
	json__key(&j, "c");
	json__raw(&j, "[1,2]", 5);
	json__obj_end(&j);
	s = done(&j);
	assert_string_equal(s, "{\"a\":[0,18446744073709551615,-9223372036854775808,-5,null,true,{}],"
			       "\"b\":0.5,\"c\":[1,2]}");
	free(s);
}

static void test_json_escaping(void **state)
{
	struct json j;
	char *s;

	json__init(&j);
	json__arr_begin(&j);
	json__str(&j, "q\"b\\s\n\r\t\x01\x1f");
	/* Valid multi-byte UTF-8 passes; a lone continuation byte, an overlong '/', a
	 * surrogate and a truncated sequence become U+FFFD each byte. */
	json__str(&j, "\xc2\xb5\xe2\x82\xac\xf0\x9f\x98\x80");
	json__str(&j, "a\x80" "b\xc0\xaf" "c\xed\xa0\x80" "d\xe2\x82");
	json__strn(&j, "x\0y", 3);
	json__arr_end(&j);
	s = done(&j);
	assert_string_equal(s, "[\"q\\\"b\\\\s\\n\\r\\t\\u0001\\u001f\","
			       "\"\xc2\xb5\xe2\x82\xac\xf0\x9f\x98\x80\","
			       "\"a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd" "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
			       "d\xef\xbf\xbd\xef\xbf\xbd\","
			       "\"x\\u0000y\"]");
	free(s);
}

static void test_json_double_not_finite(void **state)
{
	struct json j;
	char *s;

	json__init(&j);
	json__arr_begin(&j);
	json__double(&j, 1.0 / 0.0);
	json__double(&j, 0.0 / 0.0);
	json__arr_end(&j);
	s = done(&j);
	assert_string_equal(s, "[null,null]");
	free(s);
}

struct kv {
	const char *k[4], *v[4];
};

static const char *lookup(void *ctx, const char *name)
{
	struct kv *kv = ctx;

	for (int i = 0; i < 4 && kv->k[i]; i++)
		if (!strcmp(kv->k[i], name))
			return kv->v[i];
	return NULL;
}

static void test_params_numbers(void **state)
{
	uint64_t v = 0;

	assert_int_equal(params__parse_u64("0", UINT64_MAX, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(params__parse_u64("+18446744073709551615", UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(params__parse_u64("18446744073709551616", UINT64_MAX, &v), -ERANGE);
	assert_int_equal(params__parse_u64("4294967296", UINT32_MAX, &v), -ERANGE);
	assert_int_equal(params__parse_u64("", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(params__parse_u64("+", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(params__parse_u64("-1", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(params__parse_u64(" 1", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(params__parse_u64("1e3", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(params__parse_u64("0x10", UINT64_MAX, &v), -EINVAL);
}

static void test_params_errors_name_the_parameter(void **state)
{
	struct kv kv = { { "start_ns", "end_ns", "num_buckets" }, { "10", "5", "0" } };
	struct params p;
	uint64_t a, b, n;

	params__init(&p, lookup, &kv);
	assert_int_equal(params__range(&p, &a, &b), -EINVAL);
	assert_string_equal(p.bad, "end_ns");
	assert_non_null(strstr(p.msg, "end_ns"));

	kv.v[1] = "10";
	params__init(&p, lookup, &kv);
	assert_int_equal(params__range(&p, &a, &b), 0);	/* zero width is fine */
	assert_int_equal(params__count(&p, "num_buckets", true, 100, 0, &n), -EINVAL);
	assert_string_equal(p.bad, "num_buckets");

	params__init(&p, lookup, &kv);
	assert_int_equal(params__count(&p, "max_points", false, 100, 7, &n), 0);
	assert_int_equal(n, 7);
	assert_int_equal(params__count(&p, "limit", true, 100, 0, &n), -EINVAL);
	assert_string_equal(p.bad, "limit");
	assert_non_null(strstr(p.msg, "missing"));
}

static void collect(void *ctx, const char *item, unsigned int len)
{
	char *out = ctx;

	strncat(out, item, len);
	strcat(out, "|");
}

static void test_params_split(void **state)
{
	char out[64] = "";

	params__split("a,,b',c,", collect, out);
	assert_string_equal(out, "a|b'|c|");
}

static uint64_t identity_vals[] = { 0, 1, 1, 3, 8, 9, 1000, 1u << 20 };

static uint64_t get_val(const void *ctx, uint64_t k)
{
	return ((const uint64_t *)ctx)[k];
}

static void test_dist_spacing_keeps_ends(void **state)
{
	/* m evenly spaced order statistics of n: first and last always, strictly rising. */
	for (uint64_t n = 2; n < 50; n++) {
		for (uint64_t m = 2; m < n; m++) {
			assert_int_equal(dist__spaced(0, m, n), 0);
			assert_int_equal(dist__spaced(m - 1, m, n), n - 1);
			for (uint64_t j = 1; j < m; j++)
				assert_true(dist__spaced(j, m, n) > dist__spaced(j - 1, m, n));
		}
	}
}

static void test_dist_outputs(void **state)
{
	struct json j;
	char *s;

	json__init(&j);
	json__arr_begin(&j);
	dist__values(&j, get_val, identity_vals, 8, 0);
	dist__values(&j, get_val, identity_vals, 8, 3);	/* indices 0, 3.5 rounded up, 7 */
	dist__cdf(&j, get_val, identity_vals, 8, 2);
	dist__histogram(&j, get_val, identity_vals, 8);
	json__arr_end(&j);
	s = done(&j);
	assert_string_equal(s,
		"[[0,1,1,3,8,9,1000,1048576],[0,8,1048576],[[0,0.125],[1048576,1]],"
		"[{\"lo\":0,\"hi\":1,\"count\":1},{\"lo\":1,\"hi\":2,\"count\":2},{\"lo\":2,\"hi\":4,\"count\":1},"
		"{\"lo\":4,\"hi\":8,\"count\":0},{\"lo\":8,\"hi\":16,\"count\":2},{\"lo\":16,\"hi\":32,\"count\":0},"
		"{\"lo\":32,\"hi\":64,\"count\":0},{\"lo\":64,\"hi\":128,\"count\":0},{\"lo\":128,\"hi\":256,\"count\":0},"
		"{\"lo\":256,\"hi\":512,\"count\":0},{\"lo\":512,\"hi\":1024,\"count\":1},{\"lo\":1024,\"hi\":2048,\"count\":0},"
		"{\"lo\":2048,\"hi\":4096,\"count\":0},{\"lo\":4096,\"hi\":8192,\"count\":0},{\"lo\":8192,\"hi\":16384,\"count\":0},"
		"{\"lo\":16384,\"hi\":32768,\"count\":0},{\"lo\":32768,\"hi\":65536,\"count\":0},{\"lo\":65536,\"hi\":131072,\"count\":0},"
		"{\"lo\":131072,\"hi\":262144,\"count\":0},{\"lo\":262144,\"hi\":524288,\"count\":0},"
		"{\"lo\":524288,\"hi\":1048576,\"count\":0},{\"lo\":1048576,\"hi\":2097152,\"count\":1}]]");
	free(s);
}

static void test_dist_top_bin(void **state)
{
	uint64_t vals[] = { UINT64_MAX - 1, UINT64_MAX };
	struct json j;
	char *s;

	json__init(&j);
	dist__histogram(&j, get_val, vals, 2);
	s = done(&j);
	assert_string_equal(s, "[{\"lo\":9223372036854775808,\"hi\":18446744073709551615,\"count\":2}]");
	free(s);
}

static void test_radix_sort_is_stable(void **state)
{
	enum { N = 100000 };
	uint64_t *keys = malloc(N * sizeof(*keys));
	uint32_t *perm = malloc(N * sizeof(*perm));
	uint64_t x = 12345;

	assert_non_null(keys);
	assert_non_null(perm);
	for (uint32_t i = 0; i < N; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		keys[i] = (x >> 20) & 0xffffff;	/* 24 bits: many ties */
		perm[i] = i;
	}
	assert_int_equal(sort__radix_perm(keys, perm, N, 24), 0);
	for (uint32_t i = 1; i < N; i++) {
		assert_true(keys[perm[i - 1]] <= keys[perm[i]]);
		if (keys[perm[i - 1]] == keys[perm[i]])
			assert_true(perm[i - 1] < perm[i]);
	}
	assert_int_equal(sort__bits(0), 0);
	assert_int_equal(sort__bits(1), 1);
	assert_int_equal(sort__bits(UINT64_MAX), 64);
	free(keys);
	free(perm);
}

/* Packed arrays give every value back: runs of close values, wide blocks, a partial
 * last block, the extremes. */
static void test_pack32_round_trip(void **state)
{
	static const uint64_t sizes[] = { 0, 1, 255, 256, 257, 100000 };
	uint64_t x = 88172645463325252ull;

	(void)state;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t n = sizes[s];
		uint32_t *v = malloc((n + 1) * sizeof(*v));
		struct pack32 p;

		for (uint64_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* Mostly ascending runs; every 1000th block random over the whole range. */
			v[i] = (i >> 8) % 1000 == 7 ? (uint32_t)x : (uint32_t)(i * 3 + (x & 15));
		}
		if (n)
			v[n - 1] = UINT32_MAX, v[0] = 0;
		assert_int_equal(pack32__build(&p, v, n), 0);
		for (uint64_t i = 0; i < n; i++)
			assert_int_equal(pack32__get(&p, i), v[i]);
		if (n == 100000)
			assert_true(p.nwide >= 1 && pack32__bytes(&p) < n * 3);
		pack32__free(&p);
		free(v);
	}
}

/* A sparse column answers every set row with its value and says which rows are set, at
 * block edges too. */
static void test_sparse32_round_trip(void **state)
{
	static const uint64_t sizes[] = { 0, 1, 511, 512, 513, 4096, 100003 };
	uint64_t x = 2463534242ull;

	(void)state;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t n = sizes[s];
		uint32_t *v = malloc((n + 1) * sizeof(*v));
		uint8_t *f = malloc(n + 1);
		struct sparse32 sp;

		for (uint64_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			v[i] = (uint32_t)(x >> 11);
			/* About 4 in 10 set, with a fully set and a fully clear block. */
			f[i] = (i >> 9) == 3 ? 5 : (i >> 9) == 5 ? 2 : (x % 10 < 4 ? 4 : 1);
		}
		assert_int_equal(sparse32__build(&sp, v, f, 4, n), 0);
		for (uint64_t i = 0; i < n; i++) {
			assert_int_equal(sparse32__has(&sp, i), (f[i] & 4) != 0);
			if (f[i] & 4)
				assert_int_equal(sparse32__get(&sp, i), v[i]);
		}
		sparse32__free(&sp);
		free(v);
		free(f);
	}
}

/* A writer that spills to a file gives the same bytes as one that keeps them. */
static void test_json_spill_same_bytes(void **state)
{
	struct json a, b;
	size_t alen;
	uint64_t blen = 0;
	char *abuf, *bbuf;
	int fd;

	(void)state;
	json__init(&a);
	json__init(&b);
	json__spill(&b, 100);
	/* A hint past the limit must not let the buffer grow past it. */
	json__reserve(&b, 1 << 20);
	for (struct json *j = &a; j; j = j == &a ? &b : NULL) {
		json__obj_begin(j);
		json__key(j, "values");
		json__arr_begin(j);
		for (int i = 0; i < 5000; i++)
			json__u64(j, (uint64_t)i * 7919);
		json__arr_end(j);
		json__key(j, "s");
		json__str(j, "tail \"quoted\"");
		json__obj_end(j);
	}
	assert_false(json__steal_fd(&a, &fd, &blen));
	abuf = json__steal(&a, &alen);
	assert_non_null(abuf);
	assert_true(b.cap <= 4096);	/* the smallest buffer; the hint asked for 1 MiB */
	assert_true(json__steal_fd(&b, &fd, &blen));
	assert_true(fd >= 0);
	assert_int_equal(blen, alen);
	bbuf = malloc(blen + 1);
	assert_int_equal(pread(fd, bbuf, blen, 0), (ssize_t)blen);
	assert_memory_equal(abuf, bbuf, alen);
	close(fd);
	free(abuf);
	free(bbuf);
}

/* The binary searches against a linear scan, over arrays with runs of equal values. */
static void test_bsearch_matches_scan(void **state)
{
	uint32_t a32[300];
	uint64_t a64[300];
	int64_t ai[300];

	srand(7);
	for (uint64_t n = 0; n <= 300; n += 23) {
		for (uint64_t i = 0, v = 0; i < n; i++) {
			v += (uint64_t)(rand() % 3);
			a32[i] = (uint32_t)v;
			a64[i] = v << 33;
			ai[i] = (int64_t)v - 100;
		}
		for (uint64_t key = 0; key < 2 * n + 5; key++) {
			uint64_t lo = 0, up = 0;

			while (lo < n && a32[lo] < key)
				lo++;
			while (up < n && a32[up] <= key)
				up++;
			assert_int_equal(bsearch__lower_u32(a32, n, key), lo);
			assert_int_equal(bsearch__lower_u64(a64, n, key << 33), lo);
			assert_int_equal(bsearch__lower_i64(ai, n, (int64_t)key - 100), lo);
			assert_int_equal(BSEARCH_FIRST((uint64_t)0, n, i, a32[i] <= key), up);
			assert_int_equal(bsearch__find_u32(a32, n, (uint32_t)key),
					 lo < n && a32[lo] == key ? (int64_t)lo : -1);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack32_round_trip),
		cmocka_unit_test(test_sparse32_round_trip),
		cmocka_unit_test(test_json_spill_same_bytes),
		cmocka_unit_test(test_json_structure),
		cmocka_unit_test(test_json_escaping),
		cmocka_unit_test(test_json_double_not_finite),
		cmocka_unit_test(test_params_numbers),
		cmocka_unit_test(test_params_errors_name_the_parameter),
		cmocka_unit_test(test_params_split),
		cmocka_unit_test(test_dist_spacing_keeps_ends),
		cmocka_unit_test(test_dist_outputs),
		cmocka_unit_test(test_dist_top_bin),
		cmocka_unit_test(test_bsearch_matches_scan),
		cmocka_unit_test(test_radix_sort_is_stable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
