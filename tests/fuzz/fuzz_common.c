#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/utf8.h"
#include "server/api.h"
#include "server/loader.h"
#include "trace/duck.h"
#include "fuzz_common.h"

void fz__fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "\n%s:%d: check failed: %s\n  ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	abort();
}

void fz__init_process(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static char workdir[256];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void rm_workdir(void)
{
	if (workdir[0])
		nftw(workdir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

const char *fz__workdir(void)
{
	const char *base = getenv("FUZZ_TMPDIR");

	if (workdir[0])
		return workdir;
	if (!base || !*base)
		base = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";
	snprintf(workdir, sizeof(workdir), "%s/probex-fuzz.XXXXXX", base);
	if (!mkdtemp(workdir)) {
		perror("mkdtemp");
		abort();
	}
	atexit(rm_workdir);
	return workdir;
}

int fz__write_file(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), err = 0;

	if (fd < 0)
		return -errno;
	while (size) {
		ssize_t n = write(fd, data, size);

		if (n < 0) {
			err = -errno;
			break;
		}
		data += n;
		size -= (size_t)n;
	}
	close(fd);
	return err;
}

/* libFuzzer keeps its own FILE for its reports and sanitizers write to the descriptor,
 * so swapping the stdio `stderr` variable captures exactly what probex's log.c prints. */
static FILE *saved_stderr;
static char *cap_buf;
static size_t cap_len;

void fz__capture_begin(void)
{
	FILE *f;

	free(cap_buf);
	cap_buf = NULL;
	cap_len = 0;
	f = open_memstream(&cap_buf, &cap_len);
	if (!f)
		abort();
	saved_stderr = stderr;
	stderr = f;
}

const char *fz__capture_end(void)
{
	fclose(stderr);
	stderr = saved_stderr;
	return cap_buf ? cap_buf : "";
}

size_t fz__addresses(const uint8_t *data, size_t size, uint64_t out[FZ_ADDRS_MAX])
{
	size_t n = 0;

	out[n++] = 0;
	out[n++] = UINT64_MAX;
	for (size_t i = 0; i + 8 <= size && i < 64 * 8; i += 8) {
		uint64_t a;

		memcpy(&a, data + i, 8);
		out[n++] = a;
		out[n++] = a & 0xffffffffull;
	}
	return n;
}

unsigned int fz__count_lines(const char *s, const char *needle)
{
	unsigned int n = 0;

	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);

		if (!needle || memmem(s, len, needle, strlen(needle)))
			n++;
		s += len + (nl ? 1 : 0);
	}
	return n;
}

static duckdb_database shared_db;

static void close_db(void)
{
	duckdb_close(&shared_db);
}

/* One thread: a tenth of the per-input cost of DuckDB's default here (the code paths,
 * sinks included, are the same). */
duckdb_database fz__db(void)
{
	duckdb_connection con;

	if (!shared_db) {
		if (duck__open_memory(&shared_db, &con, 1))
			abort();
		duckdb_disconnect(&con);
		atexit(close_db);
	}
	return shared_db;
}

/* Every part a load prepares: the server answers everything once these are ready. */
#define FZ_ALL_PARTS (READY_ROWS | READY_OPS | READY_STACKS)

int fz__load(const char *path, struct viewer_state *st, int *stage_failed)
{
	duckdb_connection con = NULL;
	struct timespec zero = { 0 };
	pthread_t loader;
	sigset_t usr1;
	int err;

	memset(st, 0, sizeof(*st));
	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->cond, NULL);
	*stage_failed = 0;
	st->db = fz__db();
	if (duckdb_connect(st->db, &con) == DuckDBError)
		abort();
	err = trace_file__open(path, con, &st->tf);
	duckdb_disconnect(&con);
	if (err)
		return err;
	*stage_failed = 1;
	err = loader__start(st, pthread_self(), &loader);
	if (err)
		return err;
	state__wait(st, FZ_ALL_PARTS);
	pthread_join(loader, NULL);
	/* The loader signals the server thread when it fails: take that signal here. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	while (sigtimedwait(&usr1, NULL, &zero) == SIGUSR1)
		;
	return (st->ready & FZ_ALL_PARTS) == FZ_ALL_PARTS && !st->failed ? 0 : -EINVAL;
}

/* The same order as viewer__main's cleanup, then the tables the loader made are dropped
 * instead of closing the shared database. */
void fz__unload(struct viewer_state *st)
{
	duckdb_connection con;

	st->stopping = true;
	loader__release(st);
	if (duckdb_connect(st->db, &con) == DuckDBError || duck__exec(con, "DROP TABLE IF EXISTS ev") ||
	    duck__exec(con, "DROP TABLE IF EXISTS fl"))
		abort();
	duckdb_disconnect(&con);
	pthread_mutex_destroy(&st->lock);
	pthread_cond_destroy(&st->cond);
}

/* --- requests ------------------------------------------------------------------- */

#define FZ_MAX_ARGS 64

struct query {
	unsigned int n;
	char *key[FZ_MAX_ARGS], *val[FZ_MAX_ARGS];
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* libmicrohttpd's rules: '+' is a space, %XX a byte, a malformed escape stays as is;
 * the value is then a C string, so an encoded NUL ends it. */
static char *decode(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;

	if (!out)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '+') {
			*o++ = ' ';
		} else if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 &&
			   hexval(s[i + 2]) >= 0) {
			*o++ = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = 0;
	return out;
}

static void query__parse(struct query *q, const char *s, size_t n)
{
	size_t i = 0;

	memset(q, 0, sizeof(*q));
	while (i < n && q->n < FZ_MAX_ARGS) {
		const char *amp = memchr(s + i, '&', n - i);
		size_t end = amp ? (size_t)(amp - s) : n;
		const char *eq = memchr(s + i, '=', end - i);

		if (end > i) {
			q->key[q->n] = decode(s + i, (eq ? (size_t)(eq - s) : end) - i);
			q->val[q->n] = eq ? decode(eq + 1, end - (size_t)(eq - s) - 1) : NULL;
			q->n++;
		}
		i = end + 1;
	}
}

static void query__free(struct query *q)
{
	for (unsigned int i = 0; i < q->n; i++) {
		free(q->key[i]);
		free(q->val[i]);
	}
}

static const char *query__get(void *ctx, const char *name)
{
	struct query *q = ctx;

	for (unsigned int i = 0; i < q->n; i++)
		if (!strcmp(q->key[i], name))
			return q->val[i];
	return NULL;
}

/* What server.c's serve_api does, minus the socket. */
int fz__request(struct viewer_state *st, const char *name, const char *qs, size_t qlen,
		char **body, size_t *len, const char **param)
{
	const struct api_route *route = api__route(name);
	struct request rq = { .st = st };
	struct query q;
	int status;

	*body = NULL;
	*len = 0;
	*param = NULL;
	if (!route)
		return 404;
	if (!state__wait(st, api__need(route)))
		return 503;
	query__parse(&q, qs, qlen);
	params__init(&rq.p, query__get, &q);
	json__init(&rq.out);
	status = route->fn(&rq);
	conn__put(st, rq.conn);
	if (status == 200) {
		*body = json__steal(&rq.out, len);
		if (!*body)
			status = 500;
	} else {
		json__free(&rq.out);
		*body = strdup(rq.error[0] ? rq.error : "internal error");
		*len = strlen(*body);
		/* Parameter names are the handlers' string constants. */
		*param = rq.error_param;
	}
	query__free(&q);
	return status;
}

/* --- strict JSON ---------------------------------------------------------------- */

struct jp {
	const unsigned char *s;
	size_t n, i;
	int depth;
};

static void ws(struct jp *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' ||
			       p->s[p->i] == '\r'))
		p->i++;
}

static bool lit(struct jp *p, const char *w)
{
	size_t l = strlen(w);

	if (p->n - p->i < l || memcmp(p->s + p->i, w, l))
		return false;
	p->i += l;
	return true;
}

static bool digits(struct jp *p)
{
	size_t start = p->i;

	while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
		p->i++;
	return p->i > start;
}

static bool number(struct jp *p)
{
	if (p->i < p->n && p->s[p->i] == '-')
		p->i++;
	if (p->i < p->n && p->s[p->i] == '0')
		p->i++;
	else if (!digits(p))
		return false;
	if (p->i < p->n && p->s[p->i] == '.') {
		p->i++;
		if (!digits(p))
			return false;
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (!digits(p))
			return false;
	}
	return true;
}

static bool string(struct jp *p)
{
	if (p->i >= p->n || p->s[p->i] != '"')
		return false;
	p->i++;
	while (p->i < p->n) {
		unsigned char c = p->s[p->i];
		size_t l;

		if (c == '"') {
			p->i++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c == '\\') {
			if (++p->i >= p->n)
				return false;
			c = p->s[p->i++];
			if (c == 'u') {
				for (int k = 0; k < 4; k++, p->i++)
					if (p->i >= p->n || hexval((char)p->s[p->i]) < 0)
						return false;
			} else if (!strchr("\"\\/bfnrt", c) || !c) {
				return false;
			}
			continue;
		}
		l = utf8__seq_len(p->s + p->i, p->n - p->i);
		if (!l)
			return false;
		p->i += l;
	}
	return false;
}

static bool value(struct jp *p);

static bool container(struct jp *p, char close, bool obj)
{
	bool first = true;

	if (++p->depth > 64)
		return false;
	p->i++;
	for (;;) {
		ws(p);
		if (p->i < p->n && p->s[p->i] == (unsigned char)close && first) {
			p->i++;
			break;
		}
		if (obj) {
			if (!string(p))
				return false;
			ws(p);
			if (p->i >= p->n || p->s[p->i++] != ':')
				return false;
		}
		if (!value(p))
			return false;
		ws(p);
		first = false;
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			ws(p);
			if (p->i < p->n && p->s[p->i] == (unsigned char)close)
				return false;	/* trailing comma */
			continue;
		}
		if (p->i < p->n && p->s[p->i] == (unsigned char)close) {
			p->i++;
			break;
		}
		return false;
	}
	p->depth--;
	return true;
}

static bool value(struct jp *p)
{
	ws(p);
	if (p->i >= p->n)
		return false;
	switch (p->s[p->i]) {
	case '{':
		return container(p, '}', true);
	case '[':
		return container(p, ']', false);
	case '"':
		return string(p);
	case 't':
		return lit(p, "true");
	case 'f':
		return lit(p, "false");
	case 'n':
		return lit(p, "null");
	default:
		return number(p);
	}
}

bool fz__json_valid(const char *s, size_t n)
{
	struct jp p = { .s = (const unsigned char *)s, .n = n };

	if (!value(&p))
		return false;
	ws(&p);
	return p.i == n;
}
