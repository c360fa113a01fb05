/* The pieces of the privilege model that need no root: the viewer's Host policy, the
 * side-band filter's hold-then-decide rule, and output files (.old, --force, refusals). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/outfile.h"
#include "record/sbfilter.h"
#include "server/guard.h"

static struct guard guard_for(const char *addr, unsigned int port)
{
	struct sockaddr_storage ss = { 0 };
	struct guard g;

	if (strchr(addr, ':')) {
		ss.ss_family = AF_INET6;
		assert_int_equal(inet_pton(AF_INET6, addr, &((struct sockaddr_in6 *)&ss)->sin6_addr), 1);
	} else {
		ss.ss_family = AF_INET;
		assert_int_equal(inet_pton(AF_INET, addr, &((struct sockaddr_in *)&ss)->sin_addr), 1);
	}
	assert_int_equal(guard__init(&g, &ss, port, false), 0);
	return g;
}

static void test_host_loopback(void **state)
{
	struct guard g = guard_for("127.0.0.1", 8080);
	static const char *ok[] = { "127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080" };
	static const char *bad[] = { "evil.example:8080", "127.0.0.1", "127.0.0.1:8081", "127.0.0.1:80800",
				     "localhost.evil:8080", "127.0.0.1:8080x", "10.0.0.1:8080", "[::1]", "",
				     "[::1:8080", "127.0.0.1:8080:8080", "[::2]:8080" };

	assert_false(g.need_token);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		assert_true(guard__host_ok(&g, ok[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (guard__host_ok(&g, bad[i]))
			fail_msg("Host '%s' accepted", bad[i]);
	assert_false(guard__host_ok(&g, NULL));
}

static void test_host_bound_and_wildcard(void **state)
{
	struct guard g = guard_for("10.1.2.3", 9000), w = guard_for("0.0.0.0", 9000),
		     v6 = guard_for("fe80::1", 9000), l6 = guard_for("::1", 9000);

	assert_true(g.need_token);
	assert_int_equal(strlen(g.token), 32);
	assert_true(guard__host_ok(&g, "10.1.2.3:9000"));
	assert_false(guard__host_ok(&g, "10.1.2.4:9000"));	/* not a wildcard bind */
	assert_true(w.need_token);
	assert_true(guard__host_ok(&w, "10.1.2.4:9000"));	/* an IP literal cannot be rebound */
	assert_true(guard__host_ok(&w, "[fe80::2]:9000"));
	assert_false(guard__host_ok(&w, "evil.example:9000"));
	assert_true(guard__host_ok(&v6, "[fe80::1]:9000"));
	assert_false(l6.need_token);
	/* Two draws differ. */
	assert_string_not_equal(g.token, w.token);
}

struct sink {
	int n;
	uint32_t pids[16];
};

static int emit(void *ctx, const struct perf_event_header *ev)
{
	struct sink *s = ctx;
	uint32_t pid = 0;

	if (ev->type != PERF_RECORD_LOST)
		memcpy(&pid, ev + 1, 4);
	s->pids[s->n++] = pid;
	return 0;
}

static const struct perf_event_header *mmap2(uint32_t pid)
{
	static uint64_t buf[16][8];
	static int next;
	uint64_t *b = buf[next++ % 16];
	struct perf_event_header h = { .type = PERF_RECORD_MMAP2, .size = 64 };

	memset(b, 0, 64);
	memcpy(b, &h, sizeof(h));
	memcpy((char *)b + 8, &pid, 4);
	return (const struct perf_event_header *)b;
}

static void test_sbfilter(void **state)
{
	struct sbfilter *f = sbfilter__new();
	struct perf_event_header lost = { .type = PERF_RECORD_LOST, .size = 24 };
	uint64_t lostbuf[3] = { 0 };
	struct sink s = { 0 };

	memcpy(lostbuf, &lost, sizeof(lost));
	assert_non_null(f);
	assert_int_equal(sbfilter__add_pid(f, 100), 0);
	assert_int_equal(sbfilter__record(f, mmap2(100), emit, &s), 0);	/* known: now */
	assert_int_equal(sbfilter__record(f, (void *)lostbuf, emit, &s), 0);	/* no process: now */
	assert_int_equal(s.n, 2);
	/* A child whose fork record comes in the next ring-buffer drain: held, then kept. */
	assert_int_equal(sbfilter__record(f, mmap2(200), emit, &s), 0);
	assert_int_equal(sbfilter__record(f, mmap2(999), emit, &s), 0);	/* foreign */
	assert_int_equal(sbfilter__settle(f, false, emit, &s), 0);
	assert_int_equal(s.n, 2);
	sbfilter__add_pid(f, 200);
	assert_int_equal(sbfilter__settle(f, false, emit, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.pids[2], 200);
	assert_int_equal(sbfilter__dropped(f), 1);	/* 999: unknown for a whole drain */
	/* The final settle drops whatever is still unknown. */
	assert_int_equal(sbfilter__record(f, mmap2(998), emit, &s), 0);
	assert_int_equal(sbfilter__settle(f, true, emit, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(sbfilter__dropped(f), 2);
	sbfilter__free(f);
}

static char dir[64];

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void expect(const char *path, const char *text)
{
	char buf[64] = { 0 };
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_true(read(fd, buf, sizeof(buf) - 1) >= 0);
	close(fd);
	assert_string_equal(buf, text);
}

static void test_outfile(void **state)
{
	char out[128], tmp[160], old[160];
	struct stat st;

	assert_non_null(mkdtemp(strcpy(dir, "/tmp/probex-outfile-XXXXXX")));
	snprintf(out, sizeof(out), "%s/t.parquet", dir);
	assert_int_equal(outfile__tmp_name(tmp, sizeof(tmp), out), 0);
	snprintf(old, sizeof(old), "%s.old", out);
	assert_int_equal(outfile__check(out), 0);
	put(tmp, "one");
	assert_int_equal(outfile__check(out), -EEXIST);	/* the temporary name is taken */
	assert_int_equal(outfile__commit(tmp, out, false), 0);
	assert_int_equal(lstat(old, &st), -1);		/* nothing to keep */
	put(tmp, "two");
	assert_int_equal(outfile__commit(tmp, out, false), 0);
	expect(out, "two");
	expect(old, "one");
	put(tmp, "three");
	assert_int_equal(outfile__commit(tmp, out, true), 0);
	expect(out, "three");
	expect(old, "one");
	assert_int_equal(outfile__check(dir), -EISDIR);
	snprintf(tmp, sizeof(tmp), "%s/missing/x", dir);
	assert_int_equal(outfile__check(tmp), -ENOENT);
	unlink(out);
	unlink(old);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_loopback),
		cmocka_unit_test(test_host_bound_and_wildcard),
		cmocka_unit_test(test_sbfilter),
		cmocka_unit_test(test_outfile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
