/* Who may talk to the viewer.  A page the user visits must not read the trace:
 *   - Host must name this server (localhost, 127.0.0.1, [::1], the bound address; with a
 *     wildcard bind also an IP literal or this machine's name) with the bound port: a
 *     DNS-rebound name is refused;
 *   - an /api request carrying an Origin must come from such a host;
 *   - bound to a non-loopback address, every request needs the random token printed in
 *     the URL (as Jupyter does): ?token=... once, then a cookie; --no-token opts out. */
#ifndef PROBEX_SERVER_GUARD_H
#define PROBEX_SERVER_GUARD_H

#include <stdbool.h>
#include <sys/socket.h>

struct MHD_Connection;

struct guard {
	char bound[64];		/* numeric bound address, IPv6 in brackets */
	bool wildcard;		/* 0.0.0.0 or :: */
	unsigned int port;
	char hostname[256];	/* gethostname(), for wildcard binds */
	bool need_token;
	char token[33];		/* 32 hex digits */
	char cookie[32];	/* probex_token_PORT */
};

/* Fill g for a server bound to ss at port.  Negative errno when no token can be drawn. */
int guard__init(struct guard *g, const struct sockaddr_storage *ss, unsigned int port, bool no_token);

/* NULL when the request may proceed, else why not (served as 403).  *set_cookie is set
 * when the token came in the query: the response should carry guard__cookie(). */
const char *guard__check(const struct guard *g, struct MHD_Connection *conn, bool api, bool *set_cookie);

/* "NAME=TOKEN; Path=/; HttpOnly; SameSite=Strict" into buf. */
void guard__cookie(const struct guard *g, char *buf, size_t size);

/* Host names the policy accepts, for tests: the Host header value with its port. */
bool guard__host_ok(const struct guard *g, const char *host);

#endif
