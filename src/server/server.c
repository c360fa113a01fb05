/* `probex --view FILE`: validate the trace, bind, print the URL, load in the background
 * and serve the JSON API and the embedded web UI until SIGINT or SIGTERM. */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"
#include "server/api.h"
#include "server/assets.h"
#include "server/guard.h"
#include "server/loader.h"
#include "server/viewer.h"
#include "trace/duck.h"

/* One server per process; set before the daemon starts, read-only afterwards. */
static struct guard guard;
/* The request being answered (a thread per connection) brought the token in its query:
 * its response hands the browser the cookie, so the UI's own requests carry it. */
static __thread bool reply_sets_cookie;

/* What the bundled UI needs and nothing more: its own scripts, styles (and the inline
 * style attributes of its tooltips), data: images, requests to this origin only. */
/* Responses past this many bytes are written on to a temp file (json__spill). */
#define SPILL_AT ((size_t)64 << 20)

#define CSP "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " \
	    "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; " \
	    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

static enum MHD_Result send_response(struct MHD_Connection *conn, unsigned int status,
				     struct MHD_Response *r, const char *type);

static enum MHD_Result send_buf(struct MHD_Connection *conn, unsigned int status, char *body,
				size_t len, const char *type, bool must_free)
{
	struct MHD_Response *r;

	r = MHD_create_response_from_buffer(len, body, must_free ? MHD_RESPMEM_MUST_FREE :
								   MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (must_free)
			free(body);
		return MHD_NO;
	}
	return send_response(conn, status, r, type);
}

/* A response spilled to a file (json__spill): sent from it, then closed. */
static enum MHD_Result send_fd(struct MHD_Connection *conn, int fd, uint64_t size)
{
	struct MHD_Response *r = MHD_create_response_from_fd64(size, fd);

	if (!r) {
		close(fd);
		return MHD_NO;
	}
	return send_response(conn, MHD_HTTP_OK, r, "application/json");
}

static enum MHD_Result send_response(struct MHD_Connection *conn, unsigned int status,
				     struct MHD_Response *r, const char *type)
{
	enum MHD_Result ret;

	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Content-Security-Policy", CSP);
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	if (reply_sets_cookie) {
		char cookie[128];

		guard__cookie(&guard, cookie, sizeof(cookie));
		MHD_add_response_header(r, MHD_HTTP_HEADER_SET_COOKIE, cookie);
	}
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result send_error(struct MHD_Connection *conn, unsigned int status,
				  const char *msg, const char *param)
{
	struct json j;
	size_t len = 0;
	char *body;

	json__init(&j);
	json__obj_begin(&j);
	json__key(&j, "error");
	json__str(&j, msg);
	if (param) {
		json__key(&j, "parameter");
		json__str(&j, param);
	}
	json__obj_end(&j);
	body = json__steal(&j, &len);
	if (!body)
		return MHD_NO;
	return send_buf(conn, status, body, len, "application/json", true);
}

static const char *get_arg(void *ctx, const char *name)
{
	return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, name);
}

/* libmicrohttpd decodes %00 into a value, which the C strings the handlers read would
 * silently cut short ("pid=1%00x" read as 1): find the first such parameter. */
static enum MHD_Result find_nul(void *cls, enum MHD_ValueKind kind, const char *key,
				size_t key_size, const char *value, size_t value_size)
{
	const char **bad = cls;

	if (strlen(key) != key_size || (value && strlen(value) != value_size)) {
		*bad = key;
		return MHD_NO;
	}
	return MHD_YES;
}

/* The trace a request's `trace` parameter names: 0, or 400 (*st NULL: there is no base). */
static int pick_trace(struct viewer_state **st, struct MHD_Connection *conn)
{
	const char *t = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "trace");

	if (!t || !strcmp(t, "new"))
		return 0;
	if (strcmp(t, "base"))
		return 400;
	*st = (*st)->base;
	return *st ? 0 : 400;
}

static enum MHD_Result serve_api(struct viewer_state *st, struct MHD_Connection *conn,
				 const char *name)
{
	const struct api_route *route = api__route(name);
	struct request rq = { 0 };
	enum MHD_Result ret;
	uint64_t size = 0;
	size_t len = 0;
	char *body;
	int status, fd;

	if (!route) {
		char msg[300];

		snprintf(msg, sizeof(msg), "unknown API endpoint /api/%.200s", name);
		return send_error(conn, MHD_HTTP_NOT_FOUND, msg, NULL);
	}
	/* trace=base asks the compare view's baseline the same question. */
	if ((status = pick_trace(&st, conn)))
		return send_error(conn, (unsigned int)status, st ? "parameter 'trace' must be new or base" :
				  "no base trace: start the viewer with --view NEW --base BASE", "trace");
	/* Requests that arrive while the trace loads wait for the part they need. */
	if (!state__wait(st, api__need(route)))
		return send_error(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
				  st->stopping ? "the viewer is shutting down" : st->load_error, NULL);
	if ((route->need & NEED_BASE) && st->base && !state__wait(st->base, api__base_need(route)))
		return send_error(conn, MHD_HTTP_SERVICE_UNAVAILABLE, st->base->stopping ?
				  "the viewer is shutting down" : st->base->load_error, NULL);
	{
		const char *bad = NULL;
		char msg[300];

		MHD_get_connection_values_n(conn, MHD_GET_ARGUMENT_KIND, find_nul, &bad);
		if (bad) {
			snprintf(msg, sizeof(msg), "parameter '%.200s' contains a NUL byte", bad);
			return send_error(conn, MHD_HTTP_BAD_REQUEST, msg, bad);
		}
	}
	rq.st = st;
	params__init(&rq.p, get_arg, conn);
	json__init(&rq.out);
	json__spill(&rq.out, SPILL_AT);
	state__enter(st);
	status = route->fn(&rq);
	conn__put(st, rq.conn);
	state__leave(st);
	if (status != 200) {
		json__free(&rq.out);
		return send_error(conn, (unsigned int)status,
				  rq.error[0] ? rq.error : "internal error", rq.error_param);
	}
	if (json__steal_fd(&rq.out, &fd, &size))
		return fd >= 0 ? send_fd(conn, fd, size) :
		       send_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot write the response", NULL);
	body = json__steal(&rq.out, &len);
	if (!body)
		return send_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory", NULL);
	ret = send_buf(conn, MHD_HTTP_OK, body, len, "application/json", true);
	return ret;
}

/* Embedded files; unknown paths without a dot fall back to index.html (the single-page
 * app routes itself), paths with a dot or under api/ do not.  Nothing is ever read from
 * disk, and odd paths (.., encoded or absolute forms, backslashes) are refused outright. */
static enum MHD_Result serve_static(struct MHD_Connection *conn, const char *url)
{
	const struct embedded_asset *a;
	const char *rel = url + 1;

	if (url[0] != '/' || rel[0] == '/' || strstr(rel, "..") || strchr(rel, '\\') ||
	    strchr(rel, '%'))
		return send_buf(conn, MHD_HTTP_NOT_FOUND, "Not Found", 9, "text/plain; charset=utf-8", false);
	if (!*rel)
		rel = "index.html";
	a = assets__find(rel);
	if (!a) {
		if (!strncmp(rel, "api/", 4) || strchr(rel, '.'))
			return send_buf(conn, MHD_HTTP_NOT_FOUND, "Not Found", 9,
					"text/plain; charset=utf-8", false);
		a = assets__find("index.html");
	}
	if (!a)
		return send_buf(conn, MHD_HTTP_NOT_FOUND, "Not Found", 9, "text/plain; charset=utf-8", false);
	return send_buf(conn, MHD_HTTP_OK, (char *)a->data, a->size, a->content_type, false);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req_cls)
{
	struct viewer_state *st = cls;
	bool api = !strncmp(url, "/api/", 5);
	const char *refused;

	refused = guard__check(&guard, conn, api, &reply_sets_cookie);
	if (refused)
		return send_error(conn, MHD_HTTP_FORBIDDEN, refused, NULL);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return send_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD are served", NULL);
	if (*upload_size)	/* a GET with a body: ignore it */
		return (*upload_size = 0), MHD_YES;
	if (api)
		return serve_api(st, conn, url + 5);
	return serve_static(conn, url);
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char line[512];

	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = 0;
	log__debug("http: %s", line);
}

/* Resolve --bind (a numeric address, or a name) into a socket address. */
static int resolve(const char *bind, unsigned int port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE }, *ai = NULL;
	char service[8];
	int rc;

	snprintf(service, sizeof(service), "%u", port);
	rc = getaddrinfo(bind, service, &hints, &ai);
	if (rc) {
		log__error("cannot use --bind %s: %s", bind, gai_strerror(rc));
		return -EINVAL;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static void print_urls(const struct sockaddr_storage *ss, unsigned int port)
{
	char host[INET6_ADDRSTRLEN + 2], name[256], query[48] = "";

	if (ss->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;

		if (IN6_IS_ADDR_UNSPECIFIED(a))
			snprintf(host, sizeof(host), "[::1]");
		else {
			char tmp[INET6_ADDRSTRLEN];

			inet_ntop(AF_INET6, a, tmp, sizeof(tmp));
			snprintf(host, sizeof(host), "[%s]", tmp);
		}
	} else {
		const struct in_addr *a = &((const struct sockaddr_in *)ss)->sin_addr;

		if (a->s_addr == htonl(INADDR_ANY))
			snprintf(host, sizeof(host), "127.0.0.1");
		else
			inet_ntop(AF_INET, a, host, sizeof(host));
	}
	if (guard.need_token)
		snprintf(query, sizeof(query), "?token=%s", guard.token);
	fprintf(stderr, "probex: viewer at http://%s:%u/%s\n", host, port, query);
	/* Listening on every interface: also the address others would use. */
	if ((ss->ss_family == AF_INET && ((const struct sockaddr_in *)ss)->sin_addr.s_addr == htonl(INADDR_ANY)) ||
	    (ss->ss_family == AF_INET6 && IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)ss)->sin6_addr))) {
		if (!gethostname(name, sizeof(name)) && name[0] && strcasecmp(name, "localhost"))
			fprintf(stderr, "probex: viewer at http://%s:%u/%s\n", name, port, query);
	}
	fflush(stderr);
}

static struct MHD_Daemon *listen_on(struct viewer_state *st, const struct viewer_opts *opts,
				    unsigned int port, struct sockaddr_storage *ss)
{
	socklen_t len = sizeof(*ss);
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			     MHD_USE_ERROR_LOG;

	if (resolve(opts->bind, port, ss, &len))
		return NULL;
	if (ss->ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* A thread per connection: the UI fires half a dozen requests at once, and a slow
	 * one must not hold up the others. */
	return MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, st,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)ss,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)256,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)120,
				MHD_OPTION_END);
}

static struct MHD_Daemon *start_http(struct viewer_state *st, const struct viewer_opts *opts,
				     unsigned int *bound)
{
	struct sockaddr_storage ss, got;
	socklen_t glen = sizeof(got);
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d;

	d = listen_on(st, opts, opts->port, &ss);
	if (!d && opts->port_fallback && opts->port) {
		int e = errno;

		d = listen_on(st, opts, 0, &ss);
		if (d)
			log__warn("port %u is busy (%s): the viewer takes a free port instead", opts->port,
				  e ? strerror(e) : "in use or not available");
	}
	if (!d) {
		log__error("cannot listen on %s port %u: %s", opts->bind, opts->port,
			   errno ? strerror(errno) : "address in use or not available");
		return NULL;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD);
	if (info && !getsockname(info->listen_fd, (struct sockaddr *)&got, &glen))
		*bound = ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port :
							   ((struct sockaddr_in *)&got)->sin_port);
	else
		*bound = opts->port;
	if (guard__init(&guard, &ss, *bound, opts->no_token)) {
		log__error("cannot draw the viewer's token: %s", strerror(errno));
		MHD_stop_daemon(d);
		return NULL;
	}
	print_urls(&ss, *bound);
	return d;
}

/* A trace's own in-memory database, with the file checked (errors name it). */
static int state__open(struct viewer_state *st, const char *file)
{
	duckdb_connection con = NULL;
	int err = -EIO;

	if (duck__open_memory(&st->db, &con, 0))
		return -EIO;
	/* A long-running server: DuckDB hands memory back after each task instead of keeping
	 * up to 128 MB per thread, and does not cache the file's blocks (event_list reads a
	 * few pages per request; the kernel's page cache already holds them). */
	if (!duck__exec(con, "SET allocator_flush_threshold = '8MB'") &&
	    !duck__exec(con, "SET enable_external_file_cache = false") &&
	    !trace_file__open(file, con, &st->tf))
		err = 0;
	duckdb_disconnect(&con);
	return err;
}

static void state__free(struct viewer_state *st)
{
	loader__release(st);
	if (st->db)
		duckdb_close(&st->db);
}

int viewer__main(const char *file, const struct viewer_opts *opts)
{
	struct viewer_state st = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
				   .sched_lock = PTHREAD_MUTEX_INITIALIZER };
	struct viewer_state base = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
				     .sched_lock = PTHREAD_MUTEX_INITIALIZER };
	struct MHD_Daemon *http = NULL;
	pthread_t loader, base_loader;
	bool loading = false, base_loading = false;
	unsigned int port = 0;
	sigset_t sigs;
	int sig = 0, ret = 1;

	/* Block the stop signals before any thread exists (DuckDB starts its workers when
	 * the database opens): they are taken synchronously below, never by a worker. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	/* A shell starts background jobs with SIGINT ignored, and an ignored signal is
	 * discarded even while blocked: restore the default so sigwait() sees it. */
	struct sigaction dfl = { .sa_handler = SIG_DFL }, ign = { .sa_handler = SIG_IGN };
	sigaction(SIGINT, &dfl, NULL);
	sigaction(SIGTERM, &dfl, NULL);
	sigaction(SIGPIPE, &ign, NULL);

	/* Everything checkable about the files is checked before binding. */
	if (state__open(&st, file) || (opts->base && state__open(&base, opts->base)))
		goto cleanup;
	if (opts->base) {
		st.base = &base;
		base.first = &st;
	}
	if (!assets__find("index.html")) {
		log__error("the embedded web UI has no index.html (a broken build)");
		goto cleanup;
	}
	http = start_http(&st, opts, &port);
	if (!http)
		goto cleanup;
	/* Both traces load at once: the compare view is ready when the larger one is. */
	if (loader__start(&st, pthread_self(), &loader)) {
		log__error("cannot start loading %s", file);
		goto cleanup;
	}
	loading = true;
	if (opts->base && loader__start(&base, pthread_self(), &base_loader)) {
		log__error("cannot start loading %s", opts->base);
		goto cleanup;
	}
	base_loading = opts->base != NULL;
	if (sigwait(&sigs, &sig))
		sig = SIGTERM;
	ret = sig == SIGUSR1 ? 1 : 0;
	if (!ret)
		log__info("stopping");
cleanup:
	if (loading)
		loader__stop(&st, loader);
	else
		st.stopping = true;
	if (base_loading)
		loader__stop(&base, base_loader);
	else
		base.stopping = true;
	if (http)
		MHD_stop_daemon(http);
	state__free(&base);
	state__free(&st);
	return ret;
}
