#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

#include "server/guard.h"

static bool is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	if (ss->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

int guard__init(struct guard *g, const struct sockaddr_storage *ss, unsigned int port, bool no_token)
{
	unsigned char rnd[16];
	char tmp[INET6_ADDRSTRLEN];

	memset(g, 0, sizeof(*g));
	g->port = port;
	if (ss->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;

		g->wildcard = IN6_IS_ADDR_UNSPECIFIED(a);
		inet_ntop(AF_INET6, a, tmp, sizeof(tmp));
		snprintf(g->bound, sizeof(g->bound), "[%s]", tmp);
	} else {
		const struct in_addr *a = &((const struct sockaddr_in *)ss)->sin_addr;

		g->wildcard = a->s_addr == htonl(INADDR_ANY);
		inet_ntop(AF_INET, a, g->bound, sizeof(g->bound));
	}
	if (gethostname(g->hostname, sizeof(g->hostname)))
		g->hostname[0] = 0;
	snprintf(g->cookie, sizeof(g->cookie), "probex_token_%u", port);
	g->need_token = !is_loopback(ss) && !no_token;
	if (!g->need_token)
		return 0;
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return -errno;
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(g->token + 2 * i, 3, "%02x", rnd[i]);
	return 0;
}

/* An IP literal cannot be rebound: DNS rebinding needs a name the attacker controls. */
static bool ip_literal(const char *name, size_t len)
{
	char buf[INET6_ADDRSTRLEN + 2];
	unsigned char addr[sizeof(struct in6_addr)];

	if (len + 1 > sizeof(buf))
		return false;
	memcpy(buf, name, len);
	buf[len] = 0;
	if (buf[0] == '[' && len > 2 && buf[len - 1] == ']') {
		buf[len - 1] = 0;
		return inet_pton(AF_INET6, buf + 1, addr) == 1;
	}
	return inet_pton(AF_INET, buf, addr) == 1;
}

static bool name_is(const char *name, size_t len, const char *want)
{
	return want[0] && strlen(want) == len && !strncasecmp(name, want, len);
}

bool guard__host_ok(const struct guard *g, const char *host)
{
	const char *colon;
	size_t len;
	char *end;
	unsigned long port;

	if (!host || !*host)
		return false;
	colon = host[0] == '[' ? strchr(host, ']') : strchr(host, ':');
	if (host[0] == '[') {
		if (!colon)
			return false;
		colon = colon[1] == ':' ? colon + 1 : (colon[1] ? NULL : colon + 1);
		if (!colon)
			return false;
	}
	len = colon ? (size_t)(colon - host) : strlen(host);
	if (colon && *colon == ':') {
		errno = 0;
		port = strtoul(colon + 1, &end, 10);
		if (errno || *end || end == colon + 1 || port != g->port)
			return false;
	} else if (g->port != 80) {
		return false;
	}
	if (name_is(host, len, "localhost") || name_is(host, len, "127.0.0.1") ||
	    name_is(host, len, "[::1]") || name_is(host, len, g->bound))
		return true;
	return g->wildcard && (ip_literal(host, len) || name_is(host, len, g->hostname));
}

static bool token_eq(const char *a, const char *b)
{
	size_t n = strlen(b);
	unsigned char diff = 0;

	if (!a || strlen(a) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

const char *guard__check(const struct guard *g, struct MHD_Connection *conn, bool api, bool *set_cookie)
{
	const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	const char *origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ORIGIN);

	*set_cookie = false;
	if (!guard__host_ok(g, host))
		return "the Host header does not name this viewer (a DNS-rebound name?): use the URL probex printed";
	if (api && origin && (strncmp(origin, "http://", 7) || !guard__host_ok(g, origin + 7)))
		return "cross-origin API requests are refused";
	if (!g->need_token)
		return NULL;
	if (token_eq(MHD_lookup_connection_value(conn, MHD_COOKIE_KIND, g->cookie), g->token))
		return NULL;
	if (token_eq(MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "token"), g->token)) {
		*set_cookie = true;
		return NULL;
	}
	return "this viewer needs the token in the URL it printed (?token=...)";
}

void guard__cookie(const struct guard *g, char *buf, size_t size)
{
	snprintf(buf, size, "%s=%s; Path=/; HttpOnly; SameSite=Strict", g->cookie, g->token);
}
