#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/bigmem.h"
#include "common/fdio.h"
#include "common/json.h"
#include "common/utf8.h"

void json__init(struct json *j)
{
	memset(j, 0, sizeof(*j));
	j->first[0] = true;
	j->spill_fd = -1;
}

void json__free(struct json *j)
{
	free(j->buf);
	if (j->spill_fd >= 0)
		close(j->spill_fd);
	json__init(j);
}

void json__spill(struct json *j, size_t at)
{
	j->spill_at = at;
}

static int spill_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != ENOENT))
		return fd;
	/* A file system without O_TMPFILE: a named file, unlinked at once. */
	if ((size_t)snprintf(path, sizeof(path), "%s/probex-json.XXXXXX", dir) >= sizeof(path))
		return -1;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* The buffer so far to the spill file; false (and the writer unusable) on failure. */
static bool spill(struct json *j)
{
	if (j->spill_fd < 0 && (j->spill_fd = spill_file()) < 0) {
		j->oom = true;
		return false;
	}
	if (fdio__write_all(j->spill_fd, j->buf, j->len)) {
		j->oom = true;
		return false;
	}
	j->spilled += j->len;
	j->len = 0;
	return true;
}

bool json__steal_fd(struct json *j, int *fd, uint64_t *size)
{
	if (j->spill_fd < 0)
		return false;
	*fd = -1;
	if (!j->oom && spill(j)) {
		*fd = j->spill_fd;
		*size = j->spilled;
		j->spill_fd = -1;
	}
	json__free(j);
	return true;
}

char *json__steal(struct json *j, size_t *len)
{
	char *b = j->buf;

	if (j->oom || !b) {
		json__free(j);
		return NULL;
	}
	if (len)
		*len = j->len;
	j->buf = NULL;
	json__init(j);
	return b;
}

int json__print(struct json *j, FILE *out)
{
	size_t len;
	char *s = json__steal(j, &len);

	if (!s)
		return -ENOMEM;
	fwrite(s, 1, len, out);
	fputc('\n', out);
	free(s);
	return 0;
}

static bool reserve(struct json *j, size_t n)
{
	size_t cap;
	char *b;

	if (j->oom)
		return false;
	if (j->len + n + 1 <= j->cap)
		return true;
	if (j->spill_at && j->len + n + 1 > j->spill_at && j->len) {
		if (!spill(j))
			return false;
		if (n + 1 <= j->cap)
			return true;
	}
	cap = j->cap ? j->cap : 4096;
	while (cap < j->len + n + 1)
		cap *= 2;
	/* realloc moves a big buffer by remapping its pages, so the old and the new copy of a
	 * response of hundreds of MB (every point of a 100M-event trace) never coexist. */
	b = realloc(j->buf, cap);
	if (!b) {
		j->oom = true;
		return false;
	}
	/* Big responses grow in huge pages (a hint: failure is fine). */
	if (cap >= BIGMEM_HUGE) {
		uintptr_t lo = ((uintptr_t)b + BIGMEM_HUGE - 1) & ~(uintptr_t)(BIGMEM_HUGE - 1);

		if (lo < (uintptr_t)b + cap)
			madvise((void *)lo, (uintptr_t)b + cap - lo, MADV_HUGEPAGE);
	}
	j->buf = b;
	j->cap = cap;
	return true;
}

static void put(struct json *j, const char *s, size_t n)
{
	if (!reserve(j, n))
		return;
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = 0;
}

static void putc_(struct json *j, char c)
{
	if (!reserve(j, 1))
		return;
	j->buf[j->len++] = c;
	j->buf[j->len] = 0;
}

/* Comma before every element but the first of its container, and none after a key. */
static void sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		putc_(j, ',');
	j->first[j->depth] = false;
}

static void open_(struct json *j, char c)
{
	sep(j);
	putc_(j, c);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct json *j, char c)
{
	if (j->depth > 0)
		j->depth--;
	putc_(j, c);
}

void json__obj_begin(struct json *j) { open_(j, '{'); }
void json__obj_end(struct json *j) { close_(j, '}'); }
void json__arr_begin(struct json *j) { open_(j, '['); }
void json__arr_end(struct json *j) { close_(j, ']'); }

static void put_cb(void *j, const char *s, size_t n)
{
	put(j, s, n);
}

void json__escape_into(struct json *j, const char *s, size_t n)
{
	json__escape(s, n, put_cb, j);
}

void json__key(struct json *j, const char *key)
{
	sep(j);
	putc_(j, '"');
	json__escape_into(j, key, strlen(key));
	put(j, "\":", 2);
	j->after_key = true;
}

void json__strn(struct json *j, const char *s, size_t n)
{
	sep(j);
	putc_(j, '"');
	json__escape_into(j, s, n);
	putc_(j, '"');
}

void json__str(struct json *j, const char *s)
{
	json__strn(j, s, strlen(s));
}

void json__u64(struct json *j, uint64_t v)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	sep(j);
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(j, p, (size_t)(tmp + sizeof(tmp) - p));
}

void json__i64(struct json *j, int64_t v)
{
	if (v >= 0) {
		json__u64(j, (uint64_t)v);
		return;
	}
	sep(j);
	putc_(j, '-');
	/* The comma is written; print the magnitude without another separator. */
	j->after_key = true;
	json__u64(j, (uint64_t)0 - (uint64_t)v);
}

void json__bool(struct json *j, bool v)
{
	sep(j);
	put(j, v ? "true" : "false", v ? 4 : 5);
}

void json__null(struct json *j)
{
	sep(j);
	put(j, "null", 4);
}

void json__double(struct json *j, double v)
{
	char tmp[32];
	int n;

	if (v != v || v > 1e308 || v < -1e308) {	/* JSON has no NaN or infinity */
		json__null(j);
		return;
	}
	n = snprintf(tmp, sizeof(tmp), "%.10g", v);
	sep(j);
	put(j, tmp, (size_t)n);
}

void json__raw(struct json *j, const char *s, size_t n)
{
	sep(j);
	put(j, s, n);
}

void json__reserve(struct json *j, size_t n)
{
	/* A spilling writer keeps at most spill_at bytes: a bigger hint (every latency of a
	 * large trace) would let the buffer hold them all before the next spill. */
	if (j->spill_at && n > j->spill_at)
		n = j->spill_at;
	reserve(j, n);
}

void json__bytes(struct json *j, const char *s, size_t n)
{
	put(j, s, n);
}
