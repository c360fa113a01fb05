/* Shared by the libFuzzer harnesses: load a trace the way `probex --view` does (same
 * validation, same background loader), drive an API endpoint without a socket, check that
 * a response is strict JSON, and capture what probex logs during one call. */
#ifndef PROBEX_FUZZ_COMMON_H
#define PROBEX_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "server/state.h"

/* Abort (a finding for libFuzzer) with a message when cond is false. */
#define FZ_CHECK(cond, ...)                                                         \
	do {                                                                        \
		if (!(cond))                                                        \
			fz__fail(__FILE__, __LINE__, #cond, __VA_ARGS__);           \
	} while (0)

void fz__fail(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 4, 5)));

/* Once per process: block the signals the viewer takes synchronously (the loader sends
 * SIGUSR1 on failure), before DuckDB starts any thread. */
void fz__init_process(void);

/* A private directory under /dev/shm (or $TMPDIR) for this process; removed at exit. */
const char *fz__workdir(void);
int fz__write_file(const char *path, const uint8_t *data, size_t size);

/* stdio's stderr redirected into memory between begin and end (the loader thread must be
 * joined before end).  end returns the captured text (valid until the next begin). */
void fz__capture_begin(void);
const char *fz__capture_end(void);
/* Lines in s, and lines containing needle. */
unsigned int fz__count_lines(const char *s, const char *needle);

/* The process's in-memory DuckDB database.  Opening one takes ~100 ms, so every input
 * shares it; fz__unload drops what a load created. */
duckdb_database fz__db(void);

/* Open, validate and fully load path into st (the viewer's checks, then its loader
 * thread, both stages).  0, or the negative errno of the stage that failed:
 * *stage_failed = 0 validation (trace_file__open), 1 loading. */
int fz__load(const char *path, struct viewer_state *st, int *stage_failed);
void fz__unload(struct viewer_state *st);

/* One request: endpoint name (after /api/) and a raw query string (k=v&k=v, percent-
 * and '+'-decoded like libmicrohttpd, first occurrence wins).  Returns the HTTP status
 * the server would send (404 for an unknown endpoint); *body and *len hold the 200 body or
 * the error message; *param the 400 parameter.  Free *body with free(). */
int fz__request(struct viewer_state *st, const char *name, const char *query, size_t qlen,
		char **body, size_t *len, const char **param);

/* Addresses to look up, taken from an input: 0 and UINT64_MAX, then each of its first 64
 * aligned 8-byte words followed by that word's low 32 bits.  Returns how many. */
#define FZ_ADDRS_MAX (2 + 2 * 64)
size_t fz__addresses(const uint8_t *data, size_t size, uint64_t out[FZ_ADDRS_MAX]);

/* Strict RFC 8259 JSON with valid UTF-8 throughout: true when s[0..n) is one value. */
bool fz__json_valid(const char *s, size_t n);

#endif
