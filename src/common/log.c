#include <stdarg.h>
#include <stdio.h>

#include "common/log.h"

int log_verbosity = 1;

static void log__vprint(const char *prefix, const char *fmt, va_list ap)
{
	/* One fprintf per line keeps messages from concurrent threads unmixed. */
	char line[2048];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "probex: %s%s\n", prefix, line);
}

void log__info(const char *fmt, ...)
{
	va_list ap;

	if (log_verbosity < 1)
		return;
	va_start(ap, fmt);
	log__vprint("", fmt, ap);
	va_end(ap);
}

void log__warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log__vprint("warning: ", fmt, ap);
	va_end(ap);
}

void log__error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log__vprint("error: ", fmt, ap);
	va_end(ap);
}

void log__debug(const char *fmt, ...)
{
	va_list ap;

	if (log_verbosity < 2)
		return;
	va_start(ap, fmt);
	log__vprint("debug: ", fmt, ap);
	va_end(ap);
}
