#include <stdarg.h>
#include <stdio.h>

#include "common/log.h"

int log_verbosity = 1;

/* Messages may quote text from elsewhere that spans lines (DuckDB errors append
 * "\n\nLINE 1: <sql>\n    ^"): fold it onto the one line each message promises, so
 * every message stays one line a script can match. */
static void one_line(char *s)
{
	char *w = s;

	for (const char *r = s; *r; r++) {
		if (*r != '\n' && *r != '\r') {
			*w++ = *r;
			continue;
		}
		while (w > s && (w[-1] == ' ' || w[-1] == '\t'))
			w--;
		while (r[1] == '\n' || r[1] == '\r' || r[1] == ' ' || r[1] == '\t')
			r++;
		if (w > s && r[1])
			*w++ = ' ';
	}
	*w = 0;
}

static void log__vprint(const char *prefix, const char *fmt, va_list ap)
{
	/* One fprintf per line keeps messages from concurrent threads unmixed. */
	char line[2048];

	vsnprintf(line, sizeof(line), fmt, ap);
	one_line(line);
	fprintf(stderr, "probex: %s%s\n", prefix, line);
}

/* The four levels: one printf-like function each, printed at verbosity >= min. */
#define LOG_LEVEL(name, min, prefix)                                                       \
	void name(const char *fmt, ...)                                                    \
	{                                                                                  \
		va_list ap;                                                                \
                                                                                           \
		if (log_verbosity < (min))                                                 \
			return;                                                            \
		va_start(ap, fmt);                                                         \
		log__vprint(prefix, fmt, ap);                                              \
		va_end(ap);                                                                \
	}

LOG_LEVEL(log__info, 1, "")
LOG_LEVEL(log__warn, 0, "warning: ")
LOG_LEVEL(log__error, 0, "error: ")
LOG_LEVEL(log__debug, 2, "debug: ")
