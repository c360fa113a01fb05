/* Parquet writer: types, nulls, lists, strings, row groups, pages, metadata and
 * statistics, all read back through DuckDB. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <cmocka.h>
#include <unistd.h>

#include "common/base64.h"
#include "parquet_check.h"

/* ---- a small fixture table with every type, nullable and required ---- */

#define N 1000

static const char long_str[] = "0123456789abcdef";
static char big[70000];
static const char *strs[] = { "", "a", "read", "write", "日本語テキスト", "emoji 😀 ok",
			      "with\nnewline and 'quotes'", big, "zz" };
static uint32_t lens[9];
static struct pq_dict dict = { strs, lens, 9 };
static uint32_t offsets[] = { 0, 0, 1, 4, 9, 29 };
static uint32_t items[29] = { 3, 1, 2, 3, 4, 5, 6, 7, 0 };
static struct pq_lists lists = { offsets, items, 5 };

static uint8_t u8[N], v_half[N], v_none[N], v_sparse[N];
static uint32_t u32[N], sid[N];
static int32_t i32[N], lid[N], lid_all_null[N], lid_req[N];
static uint64_t u64[N];
static int64_t i64[N];
static bool bl[N];

static void fixture_init(void)
{
	memset(big, 'x', sizeof(big) - 1);
	memcpy(big, long_str, sizeof(long_str) - 1);
	for (int i = 0; i < 9; i++)
		lens[i] = (uint32_t)strlen(strs[i]);
	for (int j = 9; j < 29; j++)
		items[j] = (uint32_t)(j % 7);	/* not the 70 kB string: test_large_chunk */
	for (uint32_t i = 0; i < N; i++) {
		u8[i] = (uint8_t)(i * 7);
		u32[i] = i % 3 ? 0xfffffff0u + i % 16 : i;
		i32[i] = i % 2 ? INT32_MIN + (int32_t)i : INT32_MAX - (int32_t)i;
		u64[i] = i % 5 ? UINT64_MAX - i : i;
		i64[i] = i % 2 ? INT64_MIN + i : (int64_t)i * 1000000007;
		bl[i] = i % 3 == 0;
		sid[i] = i % 9;
		lid[i] = (int32_t)(i % 7) - 2;	/* -2, -1 null; 0 empty; 1..4 */
		lid_all_null[i] = -1;
		lid_req[i] = (int32_t)(i % 5);		/* 0: empty */
		v_half[i] = i % 2;
		v_none[i] = 0;
		v_sparse[i] = i % 97 == 5 ? 7 : 0;	/* any nonzero byte means valid */
	}
}

/* name, type, required, values, valid[, dict[, lists]] */
#define COL(n, t, r, v, ...) { .def = { n, t, r }, .values = v, COL_REST(__VA_ARGS__, NULL, NULL, NULL) }
#define COL_REST(va, d, l, ...) .valid = va, .dict = d, .lists = l

static const struct tcol fixture_cols[] = {
	COL("u8", PQ_U8, true, u8, NULL),
	COL("u8n", PQ_U8, false, u8, v_half),
	COL("u32", PQ_U32, true, u32, NULL),
	COL("u32n", PQ_U32, false, u32, v_sparse),
	COL("i32", PQ_I32, true, i32, NULL),
	COL("i32n", PQ_I32, false, i32, v_none),
	COL("u64", PQ_U64, false, u64, NULL),
	COL("u64n", PQ_U64, false, u64, v_half),
	COL("i64", PQ_I64, true, i64, NULL),
	COL("i64n", PQ_I64, false, i64, v_sparse),
	COL("b", PQ_BOOL, true, bl, NULL),
	COL("bn", PQ_BOOL, false, bl, v_half),
	COL("bnone", PQ_BOOL, false, bl, v_none),
	COL("s", PQ_STRING, true, sid, NULL, &dict),
	COL("sn", PQ_STRING, false, sid, v_sparse, &dict),
	COL("snone", PQ_STRING, false, sid, v_none, &dict),
	COL("l", PQ_STRING_LIST, false, lid, NULL, &dict, &lists),
	COL("ln", PQ_STRING_LIST, false, lid, v_half, &dict, &lists),
	COL("lnone", PQ_STRING_LIST, false, lid_all_null, NULL, &dict, &lists),
	COL("lreq", PQ_STRING_LIST, true, lid_req, NULL, &dict, &lists),
};

static const struct ttable fixture = { sizeof(fixture_cols) / sizeof(fixture_cols[0]),
				       fixture_cols, N };

static void test_all_types_roundtrip(void **state)
{
	static const uint32_t rg[] = { 1, 300, 17, 1000 };
	const struct pq_kv kv[] = { { "probex.version", "0.2.0" }, { "empty", "" },
				    { "unicode", "ü → ✓" } };

	assert_int_equal(pqt_write(pqt_path, &fixture, rg, 4, NULL, kv, 3), 0);
	pqt_verify(pqt_path, &fixture);
	pqt_expect(pqt_path, "SELECT count(*) FROM parquet_metadata(%P) WHERE column_id = 0", "4");
	pqt_expect(pqt_path, "SELECT decode(value) FROM parquet_kv_metadata(%P) WHERE key = 'unicode'",
		   "ü → ✓");
	pqt_expect(pqt_path, "SELECT count(*) FROM parquet_kv_metadata(%P)", "4");	/* + ARROW:schema */
	pqt_expect(pqt_path, "SELECT created_by FROM parquet_file_metadata(%P)",
		   "probex " PROBEX_VERSION);
	/* null list, empty list and items stay distinct */
	pqt_expect(pqt_path, "SELECT count(*) FROM read_parquet(%P) WHERE l IS NULL", "286");
	pqt_expect(pqt_path, "SELECT count(*) FROM read_parquet(%P) WHERE len(l) = 0", "143");
	pqt_expect(pqt_path, "SELECT sum(len(l)) FROM read_parquet(%P)", "4127");
	pqt_expect(pqt_path, "SELECT max(strlen(s)) FROM read_parquet(%P)", "69999");
}

static void test_schema_types(void **state)
{
	static const uint32_t rg[] = { N };

	assert_int_equal(pqt_write(pqt_path, &fixture, rg, 1, NULL, NULL, 0), 0);
	pqt_expect(pqt_path,
		   "SELECT string_agg(column_type, ',') FROM (DESCRIBE SELECT * FROM "
		   "read_parquet(%P))",
		   "UTINYINT,UTINYINT,UINTEGER,UINTEGER,INTEGER,INTEGER,UBIGINT,UBIGINT,BIGINT,"
		   "BIGINT,BOOLEAN,BOOLEAN,BOOLEAN,VARCHAR,VARCHAR,VARCHAR,VARCHAR[],VARCHAR[],"
		   "VARCHAR[],VARCHAR[]");
	pqt_expect(pqt_path,
		   "SELECT string_agg(name || ':' || coalesce(repetition_type, '-') || ':' || "
		   "coalesce(converted_type, '-'), ',') FROM parquet_schema(%P) "
		   "WHERE name IN ('u8', 'u32n', 'i64', 'sn', 'l', 'lreq', 'list', 'item')",
		   "u8:REQUIRED:UINT_8,u32n:OPTIONAL:UINT_32,i64:REQUIRED:INT_64,"
		   "sn:OPTIONAL:UTF8,l:OPTIONAL:LIST,list:REPEATED:-,item:OPTIONAL:UTF8,"
		   "list:REPEATED:-,item:OPTIONAL:UTF8,list:REPEATED:-,item:OPTIONAL:UTF8,"
		   "lreq:REQUIRED:LIST,list:REPEATED:-,item:OPTIONAL:UTF8");
	pqt_expect(pqt_path, "SELECT logical_type FROM parquet_schema(%P) WHERE name = 'u64'",
		   "IntType(bitWidth=@, isSigned=0)");
	pqt_expect(pqt_path, "SELECT string_agg(DISTINCT compression, ',') FROM parquet_metadata(%P)",
		   "ZSTD");
	pqt_expect(pqt_path, "SELECT format_version FROM parquet_file_metadata(%P)", "2");
}

/* Chunk statistics agree with what DuckDB computes from the values themselves. */
static void test_statistics(void **state)
{
	static const uint32_t rg[] = { N };
	static const char *const cols[] = { "u8", "u8n", "u32", "u32n", "i32", "u64", "u64n",
					    "i64", "i64n", "b", "bn", "s", "sn" };
	char sql[1024], want[64];
	int n = 0;

	assert_int_equal(pqt_write(pqt_path, &fixture, rg, 1, NULL, NULL, 0), 0);
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		snprintf(sql, sizeof(sql),
			 "SELECT (SELECT stats_min_value || '|' || stats_max_value || '|' || "
			 "stats_null_count FROM parquet_metadata(%%P) WHERE path_in_schema = '%s') "
			 "= (SELECT min(%s)::VARCHAR || '|' || max(%s)::VARCHAR || '|' || "
			 "count(*) FILTER (WHERE %s IS NULL) FROM read_parquet(%%P))",
			 cols[i], cols[i], cols[i], cols[i]);
		pqt_expect(pqt_path, sql, "true");
	}
	pqt_expect(pqt_path, "SELECT (SELECT stats_min_value || '|' || stats_max_value || '|' || "
			 "stats_null_count FROM parquet_metadata(%P) WHERE path_in_schema = "
			 "'l, list, item') = (SELECT min(x) || '|' || max(x) || '|429' FROM "
			 "(SELECT unnest(l) AS x FROM read_parquet(%P)))", "true");
	pqt_expect(pqt_path, "SELECT stats_max_value FROM parquet_metadata(%P) "
			 "WHERE path_in_schema = 'u32'", "4294967295");
	pqt_expect(pqt_path, "SELECT stats_max_value FROM parquet_metadata(%P) "
			 "WHERE path_in_schema = 'u64'", "18446744073709551614");
	/* no min/max without values, but a null count */
	pqt_expect(pqt_path, "SELECT coalesce(stats_min_value, 'none') || stats_null_count FROM "
			 "parquet_metadata(%P) WHERE path_in_schema = 'i32n'", "none1000");
	/* filters on unsigned columns above 2^31 / 2^63 are answered right, so pruning
	 * on these statistics is safe */
	for (int i = 0; i < N; i++)
		n += u32[i] > 4294967290u;
	snprintf(want, sizeof(want), "%d", n);
	pqt_expect(pqt_path, "SELECT count(*) FROM read_parquet(%P) WHERE u32 > 4294967290", want);
	pqt_expect(pqt_path, "SELECT count(*) FROM read_parquet(%P) WHERE u64 > 9223372036854775808",
		   "800");
	pqt_expect(pqt_path, "SELECT count(*) FROM read_parquet(%P) WHERE s = 'zz'", "111");
	pqt_expect(pqt_path, "SELECT count(*) FROM read_parquet(%P) WHERE len(lreq) = 0", "200");
}

/* Strings longer than 256 bytes leave min/max out rather than bloat the footer. */
static void test_long_string_statistics(void **state)
{
	static const uint32_t ids[] = { 7, 1, 7 }, rg[] = { 3 };
	const struct tcol col = COL("s", PQ_STRING, true, ids, NULL, &dict);
	const struct ttable t = { 1, &col, 3 };

	assert_int_equal(pqt_write(pqt_path, &t, rg, 1, NULL, NULL, 0), 0);
	pqt_verify(pqt_path, &t);
	pqt_expect(pqt_path, "SELECT coalesce(stats_min_value, 'none') || stats_null_count FROM "
			 "parquet_metadata(%P)", "none0");
	pqt_expect(pqt_path, "SELECT count(*) FROM read_parquet(%P) WHERE s = 'a'", "1");
}

/* Null items are kept apart from null and empty lists (PQ_NULL_ITEM). */
static void test_null_items(void **state)
{
	static const char *const s[] = { "a", "b" };
	static const uint32_t sl[] = { 1, 1 }, off[] = { 0, 3, 4, 4 };
	static const uint32_t it[] = { 0, PQ_NULL_ITEM, 1, PQ_NULL_ITEM };
	static const struct pq_dict d = { s, sl, 2 };
	static const struct pq_lists ls = { off, it, 3 };
	static const int32_t ids[] = { 0, 1, 2, -1 };
	struct pq_column_def def = { "l", PQ_STRING_LIST, false, false, false };
	struct pq_column_data col = { ids, NULL, &d, &ls };
	struct pq_writer *w;

	unlink(pqt_path);	/* the writer refuses an existing file (O_EXCL) */
	assert_int_equal(pq_writer__open(&w, pqt_path, &def, 1, NULL), 0);
	assert_int_equal(pq_writer__write_row_group(w, 4, &col), 0);
	assert_int_equal(pq_writer__close(w, NULL, 0), 0);
	pqt_expect(pqt_path,
		   "SELECT string_agg(coalesce(CAST(l AS VARCHAR), 'NULL') || ':' || "
		   "coalesce(CAST(list_count(l) AS VARCHAR), '-'), '|' ORDER BY file_row_number) "
		   "FROM read_parquet(%P, file_row_number = true)",
		   "[a, NULL, b]:2|[NULL]:0|[]:0|NULL:-");
}

/* ARROW:schema is the base64 of the encapsulated IPC message (the node cross-reader test
 * decodes it with apache-arrow); here: framing, padding and that every file carries it. */
static void test_arrow_schema_kv(void **state)
{
	static const struct pq_column_def defs[] = { { "a", PQ_U64, true, false, false },
						     { "l", PQ_STRING_LIST, false, false, false } };
	struct pq_writer *w;
	uint8_t *msg;
	size_t len, dlen;
	char *want, *got;
	void *raw;
	int32_t body;

	assert_int_equal(pq_arrow_schema__ipc(defs, 2, &msg, &len), 0);
	assert_int_equal(len % 8, 0);
	assert_memory_equal(msg, "\xff\xff\xff\xff", 4);
	memcpy(&body, msg + 4, 4);
	assert_int_equal((size_t)body, len - 8);
	want = pq_arrow_schema__base64(defs, 2);
	assert_non_null(want);
	raw = base64__decode(want, &dlen);
	assert_int_equal(dlen, len);
	assert_memory_equal(raw, msg, len);
	/* a caller's ARROW:schema (copied from another file) gives way to the writer's */
	unlink(pqt_path);	/* the writer refuses an existing file (O_EXCL) */
	assert_int_equal(pq_writer__open(&w, pqt_path, defs, 2, NULL), 0);
	assert_int_equal(pq_writer__close(w, &(struct pq_kv){ PQ_ARROW_SCHEMA_KEY, "stale" }, 1), 0);
	pqt_expect(pqt_path, "SELECT count(*) FROM parquet_kv_metadata(%P)", "1");
	got = pqt_scalar(pqt_path, "SELECT decode(value) FROM parquet_kv_metadata(%P) "
				   "WHERE decode(key) = 'ARROW:schema'");
	assert_string_equal(got, want);
	free(got);
	free(raw);
	free(want);
	free(msg);
}

static void test_zero_rows(void **state)
{
	struct pq_column_def defs[] = { { "a", PQ_U64, true, false, false }, { "l", PQ_STRING_LIST, false, false, false } };
	struct pq_writer *w;

	unlink(pqt_path);
	unlink(pqt_path);	/* the writer refuses an existing file (O_EXCL) */
	assert_int_equal(pq_writer__open(&w, pqt_path, defs, 2, NULL), 0);
	assert_int_equal(pq_writer__write_row_group(w, 0, NULL), 0);
	assert_int_equal(pq_writer__close(w, NULL, 0), 0);
	pqt_expect(pqt_path, "SELECT count(*) FROM read_parquet(%P)", "0");
	pqt_expect(pqt_path, "SELECT num_row_groups FROM parquet_file_metadata(%P)", "0");
	pqt_expect(pqt_path,
		   "SELECT string_agg(column_type, ',') FROM (DESCRIBE SELECT * FROM "
		   "read_parquet(%P))",
		   "UBIGINT,VARCHAR[]");
}

static void test_one_row(void **state)
{
	static const uint32_t rg[] = { 1 };
	struct ttable one = fixture;

	one.nrows = 1;
	assert_int_equal(pqt_write(pqt_path, &one, rg, 1, NULL, NULL, 0), 0);
	pqt_verify(pqt_path, &one);
}

static void test_many_row_groups(void **state)
{
	static const uint32_t rg[] = { 3, 1, 2 };

	assert_int_equal(pqt_write(pqt_path, &fixture, rg, 3, NULL, NULL, 0), 0);
	pqt_verify(pqt_path, &fixture);
	pqt_expect(pqt_path, "SELECT num_row_groups FROM parquet_file_metadata(%P)", "500");
}

/* Tiny pages: every column chunk spans many pages, lists break at row boundaries. */
static void test_multi_page(void **state)
{
	static const uint32_t rg[] = { 600, 400 };
	struct pq_options o = { .page_bytes = 64, .zstd_level = 3 };

	assert_int_equal(pqt_write(pqt_path, &fixture, rg, 2, &o, NULL, 0), 0);
	pqt_verify(pqt_path, &fixture);
}

/* Default 1 MiB pages over 700k rows: several pages per column chunk. */
static void test_large_chunk(void **state)
{
	enum { M = 700000 };
	uint64_t *ts = malloc(M * sizeof(*ts));
	uint32_t *pid = malloc(M * sizeof(*pid));
	uint8_t *valid = malloc(M);
	int32_t *lst = malloc(M * sizeof(*lst));
	static const uint32_t rg[] = { M };
	const struct tcol cols[] = {
		COL("ts", PQ_U64, true, ts, NULL),
		COL("pid", PQ_U32, false, pid, valid),
		COL("l", PQ_STRING_LIST, false, lst, NULL, &dict, &lists),
	};
	const struct ttable t = { 3, cols, M };

	for (uint32_t i = 0; i < M; i++) {
		ts[i] = 1000000000000ull + i * 977ull;
		pid[i] = 1000 + i % 13;
		valid[i] = i % 5 != 0;
		lst[i] = i % 10 == 3 ? 4 : i % 10 == 4 ? 0 : -1;
	}
	assert_int_equal(pqt_write(pqt_path, &t, rg, 1, NULL, NULL, 0), 0);
	pqt_verify(pqt_path, &t);
	free(ts);
	free(pid);
	free(valid);
	free(lst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_types_roundtrip),
		cmocka_unit_test(test_schema_types),
		cmocka_unit_test(test_statistics),
		cmocka_unit_test(test_long_string_statistics),
		cmocka_unit_test(test_null_items),
		cmocka_unit_test(test_arrow_schema_kv),
		cmocka_unit_test(test_zero_rows),
		cmocka_unit_test(test_one_row),
		cmocka_unit_test(test_many_row_groups),
		cmocka_unit_test(test_multi_page),
		cmocka_unit_test(test_large_chunk),
	};

	fixture_init();
	if (getenv("PQ_TEST"))
		cmocka_set_test_filter(getenv("PQ_TEST"));
	return cmocka_run_group_tests(tests, pqt_group_setup, pqt_group_teardown);
}
