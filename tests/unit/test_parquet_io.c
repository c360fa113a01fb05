/* Parquet writer: argument errors, a full filesystem, and randomized round trips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parquet_check.h"

static bool exists(const char *p)
{
	return access(p, F_OK) == 0;
}

static const char *const few_strs[] = { "a", "b" };
static const uint32_t few_lens[] = { 1, 1 };
static const struct pq_dict few = { few_strs, few_lens, 2 };
static const uint32_t few_offsets[] = { 0, 2, 3 };
static const uint32_t few_items[] = { 0, 1, 5 };	/* list 1 holds an id out of range */
static const struct pq_lists few_lists = { few_offsets, few_items, 2 };

/* Write one 4-row row group of a single column; returns write_row_group's result and
 * checks that close repeats it and leaves no file behind. */
static int write_one(struct pq_column_def def, const void *values, const uint8_t *valid,
		     const struct pq_dict *d, const struct pq_lists *l)
{
	struct pq_column_data cd = { values, valid, d, l };
	struct pq_writer *w;
	int err, err2;

	unlink(pqt_path);
	assert_int_equal(pq_writer__open(&w, pqt_path, &def, 1, NULL), 0);
	err = pq_writer__write_row_group(w, 4, &cd);
	if (err)
		assert_int_equal(pq_writer__write_row_group(w, 4, &cd), err);
	err2 = pq_writer__close(w, NULL, 0);
	assert_int_equal(err2, err);
	assert_int_equal(exists(pqt_path), !err);
	return err;
}

static void test_invalid_arguments(void **state)
{
	static const uint32_t ids_ok[] = { 0, 1, 1, 0 }, ids_bad[] = { 0, 1, 2, 0 };
	static const int32_t lists_ok[] = { 0, -1, 0, 0 }, lists_bad[] = { 0, 2, 0, 0 };
	static const int32_t lists_bad_item[] = { 0, 1, 0, 0 };
	static const uint8_t valid[] = { 1, 0, 1, 1 };
	static const uint64_t u64[4];
	struct pq_column_def bad_type = { "x", (enum pq_type)99, false, false, false };
	struct pq_column_def no_name = { NULL, PQ_U8, false, false, false };
	struct pq_column_def s = { "s", PQ_STRING, false, false, false }, l = { "l", PQ_STRING_LIST, false, false, false };
	struct pq_column_def lreq = { "l", PQ_STRING_LIST, true, false, false }, u = { "u", PQ_U64, true, false, false };
	struct pq_kv nokey = { NULL, "v" };
	struct pq_writer *w;
	char missing[300];

	assert_int_equal(pq_writer__open(&w, pqt_path, &bad_type, 1, NULL), -EINVAL);
	assert_int_equal(pq_writer__open(&w, pqt_path, &no_name, 1, NULL), -EINVAL);
	assert_int_equal(pq_writer__open(&w, pqt_path, &u, 0, NULL), -EINVAL);
	snprintf(missing, sizeof(missing), "%s/no/such/dir.parquet", pqt_dir);
	assert_int_equal(pq_writer__open(&w, missing, &u, 1, NULL), -ENOENT);
	assert_false(exists(pqt_path));

	assert_int_equal(write_one(s, ids_ok, valid, &few, NULL), 0);
	assert_int_equal(write_one(s, ids_bad, valid, &few, NULL), -EINVAL);
	assert_int_equal(write_one(s, ids_ok, valid, NULL, NULL), -EINVAL);
	assert_int_equal(write_one(u, u64, valid, NULL, NULL), -EINVAL); /* required + valid */
	assert_int_equal(write_one(l, lists_ok, NULL, &few, &few_lists), 0);
	assert_int_equal(write_one(l, lists_bad, NULL, &few, &few_lists), -EINVAL);
	assert_int_equal(write_one(l, lists_bad_item, NULL, &few, &few_lists), -EINVAL);
	assert_int_equal(write_one(lreq, lists_ok, NULL, &few, &few_lists), -EINVAL);
	assert_int_equal(write_one(l, lists_ok, NULL, &few, NULL), -EINVAL);

	assert_int_equal(pq_writer__write_row_group(NULL, 1, NULL), -EINVAL);
	assert_int_equal(pq_writer__close(NULL, NULL, 0), -EINVAL);
	assert_int_equal(pq_writer__open(&w, pqt_path, &u, 1, NULL), 0);
	assert_int_equal(pq_writer__write_row_group(w, 1, NULL), -EINVAL);
	assert_int_equal(pq_writer__close(w, NULL, 0), -EINVAL);
	assert_false(exists(pqt_path));
	assert_int_equal(pq_writer__open(&w, pqt_path, &u, 1, NULL), 0);
	assert_int_equal(pq_writer__close(w, &nokey, 1), -EINVAL);
	assert_false(exists(pqt_path));

	assert_int_equal(pq_writer__open(&w, pqt_path, &u, 1, NULL), 0);
	assert_true(exists(pqt_path));
	pq_writer__abort(w);
	assert_false(exists(pqt_path));
	pq_writer__abort(NULL);
}

/* The writer creates its file: anything already at the path (a file, a symlink someone
 * planted) is refused and left as it was, never followed, truncated or unlinked. */
static void test_refuses_existing(void **state)
{
	struct pq_column_def u = { "u", PQ_U64, true, false, false };
	char target[300], buf[8] = { 0 };
	struct pq_writer *w = NULL;
	struct stat st;
	int fd;

	snprintf(target, sizeof(target), "%s.target", pqt_path);
	unlink(pqt_path);
	fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0 && write(fd, "keep", 4) == 4);
	close(fd);
	assert_int_equal(symlink(target, pqt_path), 0);
	assert_int_equal(pq_writer__open(&w, pqt_path, &u, 1, NULL), -EEXIST);
	assert_null(w);
	assert_int_equal(lstat(pqt_path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	unlink(pqt_path);
	assert_int_equal(link(target, pqt_path), 0);
	assert_int_equal(pq_writer__open(&w, pqt_path, &u, 1, NULL), -EEXIST);
	fd = open(target, O_RDONLY);
	assert_int_equal(read(fd, buf, sizeof(buf)), 4);
	close(fd);
	assert_string_equal(buf, "keep");
	unlink(pqt_path);
	unlink(target);
}

/* ---- full filesystem: a small tmpfs ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_disk_full(void **state)
{
	enum { M = 100000 };
	char mnt[300], file[400], filler[400], buf[4096] = { 0 };
	static uint64_t vals[M];
	static char big_value[32768];
	struct pq_column_def def = { "v", PQ_U64, true, false, false };
	struct pq_column_data cd = { vals, NULL, NULL, NULL };
	struct pq_kv kv = { "big", big_value };
	struct pq_writer *w;
	off_t size = 0;
	int fd, err;

	snprintf(mnt, sizeof(mnt), "%s/mnt", pqt_dir);
	snprintf(file, sizeof(file), "%s/full.parquet", mnt);
	snprintf(filler, sizeof(filler), "%s/filler", mnt);
	assert_int_equal(mkdir(mnt, 0700), 0);
	if (geteuid() != 0 || mount("probex-test", mnt, "tmpfs", 0, "size=64k,mode=0700")) {
		print_message("skipped: disk-full test needs root to mount a small tmpfs (%s)\n",
			      geteuid() ? "not root" : strerror(errno));
		rmdir(mnt);
		skip();
	}
	for (int i = 0; i < M; i++)
		vals[i] = rnd();	/* incompressible: 800 kB never fits in 64 kB */

	/* the data itself does not fit: write_row_group says so */
	assert_int_equal(pq_writer__open(&w, file, &def, 1, NULL), 0);
	err = pq_writer__write_row_group(w, M, &cd);
	assert_int_equal(err, -ENOSPC);
	assert_int_equal(pq_writer__write_row_group(w, M, &cd), -ENOSPC);
	pq_writer__abort(w);
	assert_false(exists(file));

	/* the data fits but the footer does not: close says so and removes the file */
	fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	for (ssize_t r; (r = write(fd, buf, sizeof(buf))) > 0;)
		size += r;
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(ftruncate(fd, (size & ~(off_t)4095) - 4096), 0);	/* one page free */
	close(fd);
	memset(big_value, 'x', sizeof(big_value) - 1);
	assert_int_equal(pq_writer__open(&w, file, &def, 1, NULL), 0);
	assert_int_equal(pq_writer__write_row_group(w, 10, &cd), 0);
	assert_int_equal(pq_writer__close(w, &kv, 1), -ENOSPC);
	assert_false(exists(file));

	unlink(filler);
	assert_int_equal(umount(mnt), 0);
	assert_int_equal(rmdir(mnt), 0);
}

/* ---- randomized round trips (fixed seed) ---- */

#define RCOLS 16

struct rtable {
	struct tcol cols[RCOLS];
	struct pq_dict dict;
	struct pq_lists lists;
	void *mem[3 * RCOLS + 8];	/* values, valid, name per column; dict, lists */
	int nmem;
};

static void *rt_alloc(struct rtable *rt, size_t n)
{
	void *p = calloc(1, n ? n : 1);

	assert_non_null(p);
	rt->mem[rt->nmem++] = p;
	return p;
}

/* Validity with one of several shapes: none, all, sparse, dense, half, runs. */
static uint8_t *rt_valid(struct rtable *rt, uint32_t n, bool required)
{
	uint8_t *v;
	int shape = (int)(rnd() % 6);
	uint32_t run = 0;
	uint8_t cur = 0;

	if (required || shape == 0)
		return NULL;
	v = rt_alloc(rt, n);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t r = rnd() % 1000;

		switch (shape) {
		case 1:
			v[i] = 0;
			break;
		case 2:
			v[i] = r < 10;
			break;
		case 3:
			v[i] = r < 990;
			break;
		case 4:
			v[i] = r < 500;
			break;
		default:
			if (!run) {
				run = 1 + (uint32_t)(rnd() % 40);
				cur = !cur;
			}
			run--;
			v[i] = cur;
		}
	}
	return v;
}

/* Values that repeat in runs now and then, so RLE runs of every length occur. */
static uint64_t rt_value(uint64_t *prev, uint64_t mod)
{
	if (rnd() % 4 == 0)
		return *prev;
	*prev = mod ? rnd() % mod : rnd();
	return *prev;
}

static const char *const pieces[] = { "a", "Z", "0", " ", "é", "日本", "😀", "\t", "'" };

static void rt_build(struct rtable *rt, uint32_t n)
{
	static const enum pq_type types[] = { PQ_U8, PQ_U32, PQ_I32, PQ_U64, PQ_I64, PQ_BOOL,
					      PQ_STRING, PQ_STRING_LIST };
	uint32_t ndict = 1 + (uint32_t)(rnd() % 600), nlists = 1 + (uint32_t)(rnd() % 900);
	char **strs = rt_alloc(rt, ndict * sizeof(*strs) + ndict * 200);
	char *pool = (char *)(strs + ndict);
	uint32_t *lens = rt_alloc(rt, ndict * sizeof(*lens));
	uint32_t *offsets = rt_alloc(rt, (nlists + 1) * sizeof(*offsets));
	uint32_t *items = rt_alloc(rt, nlists * 30 * sizeof(*items));

	for (uint32_t i = 0; i < ndict; i++) {
		char *s = pool + i * 200;
		uint32_t len = 0, parts = (uint32_t)(rnd() % 40);

		for (uint32_t j = 0; j < parts; j++) {
			const char *p = pieces[rnd() % (sizeof(pieces) / sizeof(pieces[0]))];

			memcpy(s + len, p, strlen(p));
			len += (uint32_t)strlen(p);
		}
		strs[i] = s;
		lens[i] = len;
	}
	rt->dict = (struct pq_dict){ (const char *const *)strs, lens, ndict };
	for (uint32_t i = 0; i < nlists; i++) {
		uint32_t cnt = (uint32_t)(rnd() % 31);

		offsets[i + 1] = offsets[i] + cnt;
		for (uint32_t j = 0; j < cnt; j++)
			items[offsets[i] + j] = (uint32_t)(rnd() % ndict);
	}
	rt->lists = (struct pq_lists){ offsets, items, nlists };

	for (int c = 0; c < RCOLS; c++) {
		struct tcol *tc = &rt->cols[c];
		enum pq_type t = types[c % 8];
		bool required = rnd() % 4 == 0;
		uint8_t *vals = rt_alloc(rt, (size_t)n * pqt_elem_size(t));
		uint64_t prev = 0;
		char *name = rt_alloc(rt, 16);

		snprintf(name, 16, "c%d", c);
		*tc = (struct tcol){ .def = { name, t, required }, .values = vals,
				     .valid = rt_valid(rt, n, required), .dict = &rt->dict,
				     .lists = &rt->lists };
		for (uint32_t i = 0; i < n; i++) {
			switch (t) {
			case PQ_U8:
				vals[i] = (uint8_t)rt_value(&prev, 0);
				break;
			case PQ_BOOL:
				vals[i] = rt_value(&prev, 2) != 0;
				break;
			case PQ_U32:
			case PQ_I32:
				((uint32_t *)vals)[i] = (uint32_t)rt_value(&prev, c < 8 ? 0 : 100);
				break;
			case PQ_U64:
			case PQ_I64:
				((uint64_t *)vals)[i] = rt_value(&prev, c < 8 ? 0 : 1000);
				break;
			case PQ_STRING:
				((uint32_t *)vals)[i] = (uint32_t)rt_value(&prev, ndict);
				break;
			case PQ_STRING_LIST:
				((int32_t *)vals)[i] = required || rnd() % 3 ?
					(int32_t)rt_value(&prev, nlists) : -1;
				break;
			}
		}
	}
}

static void rt_free(struct rtable *rt)
{
	while (rt->nmem)
		free(rt->mem[--rt->nmem]);
}

static void test_random_roundtrip(void **state)
{
	static const struct {
		uint32_t nrows;
		struct pq_options o;
	} runs[] = {
		{ 150000, { 0 } },
		{ 120000, { .threads = 2, .page_bytes = 4000, .zstd_level = 3 } },
		{ 20000, { .threads = 5, .page_bytes = 150, .zstd_level = -5 } },
		{ 3, { .threads = 1 } },
	};

	rng = 42;
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		struct rtable rt = { 0 };
		struct ttable t = { RCOLS, rt.cols, runs[r].nrows };
		uint32_t rg[5];

		for (int i = 0; i < 5; i++)
			rg[i] = 1 + (uint32_t)(rnd() % (i == 4 ? 50 : 70000));
		rt_build(&rt, runs[r].nrows);
		assert_int_equal(pqt_write(pqt_path, &t, rg, 5, &runs[r].o, NULL, 0), 0);
		pqt_verify(pqt_path, &t);
		rt_free(&rt);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalid_arguments),
		cmocka_unit_test(test_refuses_existing),
		cmocka_unit_test(test_disk_full),
		cmocka_unit_test(test_random_roundtrip),
	};

	if (getenv("PQ_TEST"))
		cmocka_set_test_filter(getenv("PQ_TEST"));
	return cmocka_run_group_tests(tests, pqt_group_setup, pqt_group_teardown);
}
