/* Console messages: one line each, to stderr, prefixed like perf/bpftool tools do. */
#ifndef PROBEX_COMMON_LOG_H
#define PROBEX_COMMON_LOG_H

#include <stdbool.h>

extern int log_verbosity; /* 0 quiet-ish, 1 normal (default), 2 debug */

void log__info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log__warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log__error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log__debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
