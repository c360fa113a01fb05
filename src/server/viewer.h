/* The viewer: load a trace, serve the JSON API and the embedded web UI. */
#ifndef PROBEX_SERVER_VIEWER_H
#define PROBEX_SERVER_VIEWER_H

#include <stdbool.h>

struct viewer_opts {
	const char *bind;	/* "127.0.0.1" unless --bind */
	unsigned int port;	/* 0 = any free port (the real one is printed) */
	bool no_token;		/* a non-loopback bind serves without a token */
	const char *base;	/* --base: a second trace to compare FILE with, or NULL */
	bool port_fallback;	/* a busy port: take any free one (and say so) */
};

/* Load and validate FILE (errors name the file and the problem, before binding), bind,
 * print the URL(s), serve until SIGINT/SIGTERM.  Returns the process exit status. */
int viewer__main(const char *file, const struct viewer_opts *opts);

#endif
