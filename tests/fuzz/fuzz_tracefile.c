/* libFuzzer harness: a trace file as `probex --view` opens it.
 *
 * The input is written to a file and goes through trace_file__open (the checks made
 * before binding) and the viewer's background loader (both passes).  Properties:
 *   - a refused file gives exactly one "error:" line, naming the file (validation
 *     failures print nothing else);
 *   - a loaded file answers every endpoint with strict JSON (200), or with the
 *     reference's deliberate "query failed: ..." 500 for data it cannot serve;
 *   - no crash, leak or undefined behaviour (ASan/UBSan). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz__init_process();
	log_verbosity = 1;
	return 0;
}

static void check_refusal(const char *path, const char *log, int stage)
{
	const char *line = strstr(log, "error:");
	unsigned int errors = fz__count_lines(log, "error:");

	FZ_CHECK(errors == 1, "%s: want exactly one error line, got %u:\n%s",
		 stage ? "loading" : "validation", errors, log);
	FZ_CHECK(strstr(line, path) && (!strchr(line, '\n') || strstr(line, path) < strchr(line, '\n')),
		 "the error line does not name the file:\n%s", log);
	if (stage == 0)
		FZ_CHECK(fz__count_lines(log, NULL) == 1, "validation printed more than one line:\n%s", log);
}

static void call(struct viewer_state *st, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void call(struct viewer_state *st, const char *name, const char *fmt, ...)
{
	char qs[1024];
	const char *param;
	char *body;
	size_t len;
	va_list ap;
	int status;

	va_start(ap, fmt);
	vsnprintf(qs, sizeof(qs), fmt, ap);
	va_end(ap);
	status = fz__request(st, name, qs, strlen(qs), &body, &len, &param);
	if (status == 200)
		FZ_CHECK(fz__json_valid(body, len), "/api/%s?%s: invalid JSON: %.2000s", name, qs, body);
	else
		FZ_CHECK(status == 500 && !strncmp(body, "query failed: ", 14),
			 "/api/%s?%s: HTTP %d: %s", name, qs, status, body);
	free(body);
}

static void exercise(struct viewer_state *st)
{
	const struct model *m = &st->m;
	uint64_t lo = m->min_ts, hi = m->max_ts;
	uint32_t pid = m->npids ? m->pids[m->npids / 2] : 1;
	char types[512] = "";

	call(st, "summary", "%s", "");
	call(st, "process_lifetimes", "%s", "");
	call(st, "histogram", "start_ns=%" PRIu64 "&end_ns=%" PRIu64 "&num_buckets=80", lo, hi);
	call(st, "histogram", "start_ns=0&end_ns=18446744073709551615&num_buckets=7");
	call(st, "event_type_counts", "%s", "");
	call(st, "event_type_counts", "start_ns=%" PRIu64 "&end_ns=%" PRIu64, lo, hi);
	call(st, "pid_event_type_counts", "pid=%u&start_ns=%" PRIu64 "&end_ns=%" PRIu64, pid, lo, hi);
	call(st, "syscall_latency_stats", "start_ns=%" PRIu64 "&end_ns=%" PRIu64, lo, hi);
	call(st, "syscall_latency_stats", "start_ns=%" PRIu64 "&end_ns=%" PRIu64 "&pid=%u", lo, hi, pid);
	call(st, "process_events", "start_ns=%" PRIu64 "&end_ns=%" PRIu64 "&max_events_per_pid=500", lo, hi);
	call(st, "io_statistics", "start_ns=%" PRIu64 "&end_ns=%" PRIu64, lo, hi);
	call(st, "io_statistics", "start_ns=%" PRIu64 "&end_ns=%" PRIu64 "&pid=%u&max_points=64", lo, hi, pid);
	call(st, "memory_statistics", "start_ns=%" PRIu64 "&end_ns=%" PRIu64, lo, hi);
	call(st, "memory_statistics", "start_ns=%" PRIu64 "&end_ns=%" PRIu64 "&pid=%u&max_points=64", lo, hi, pid);
	for (unsigned int c = 0; c < m->ntypes && c < 4; c++) {
		char enc[256];
		size_t k = 0;

		/* Type names come from the file: percent-encode every byte. */
		for (const unsigned char *s = (const unsigned char *)m->type_names[c]; *s && k + 4 < sizeof(enc); s++)
			k += (size_t)snprintf(enc + k, sizeof(enc) - k, "%%%02X", *s);
		enc[k] = 0;
		call(st, "event_flamegraph", "start_ns=%" PRIu64 "&end_ns=%" PRIu64 "&event_type=%s&max_stacks=5000",
		     lo, hi, enc);
		call(st, "event_flamegraph", "start_ns=%" PRIu64 "&end_ns=%" PRIu64 "&event_type=%s&max_stacks=3&pid=%u",
		     lo, hi, enc, pid);
		if (strlen(types) + strlen(enc) + 4 < sizeof(types))
			snprintf(types + strlen(types), sizeof(types) - strlen(types), "%s%s", c ? "%2C" : "", enc);
	}
	call(st, "event_list", "start_ns=%" PRIu64 "&end_ns=%" PRIu64 "&pid=%u&limit=50&offset=0", lo, hi, pid);
	call(st, "event_list", "start_ns=%" PRIu64 "&end_ns=%" PRIu64 "&pid=%u&limit=5&offset=3&event_types=%s",
	     lo, hi, pid, types);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct viewer_state st;
	char path[512];
	const char *log;
	int stage, err;

	snprintf(path, sizeof(path), "%s/trace.parquet", fz__workdir());
	if (fz__write_file(path, data, size))
		abort();
	fz__capture_begin();
	err = fz__load(path, &st, &stage);
	log = fz__capture_end();
	if (err) {
		check_refusal(path, log, stage);
	} else {
		FZ_CHECK(!fz__count_lines(log, "error:"), "a loaded trace logged an error:\n%s", log);
		fz__capture_begin();
		exercise(&st);
		fz__capture_end();
	}
	fz__unload(&st);
	return 0;
}
