/* Opening a trace for reading: the checks the 0.1 viewer makes (probex.sample_freq_hz
 * present and > 0, stack_trace_format symbolized_v1, a stack_trace list of strings, no legacy
 * stack_frames or proc_maps_snapshot columns) plus the columns this viewer reads, each failure
 * one message naming the file. */
#ifndef PROBEX_TRACE_TRACEFILE_H
#define PROBEX_TRACE_TRACEFILE_H

#include <duckdb.h>
#include <stdbool.h>
#include <stdint.h>

struct trace_file {
	const char *path;
	char *literal;		/* the path as a quoted SQL string literal */
	char *source;		/* read_parquet('<path>') as a SQL expression */
	uint64_t sample_freq_hz;
	bool has_latency_ns;	/* probex's own files: per exit/completion latency */
	bool has_stack_weight;	/* probex's own files: events a sampled stack stands for */
	bool has_stack_trace_id;	/* stack_trace_id and stack_trace_first: lists numbered */
	bool has_argv;		/* process_exec command lines */
	bool has_fd_path;	/* the path of a syscall's descriptor */
};

/* Validate PATH with connection CON.  On failure logs "PATH: problem" and returns a
 * negative errno; on success fills tf (free with trace_file__free). */
int trace_file__open(const char *path, duckdb_connection con, struct trace_file *tf);
void trace_file__free(struct trace_file *tf);

/* Read a VARCHAR/BLOB cell of a fetched vector (no NUL terminator). */
const char *trace_file__cell(void *vector_data, uint64_t row, uint32_t *len);

#endif
