/* The JSON API: one handler per endpoint, sharing a request context.  Handlers write the
 * body into rq->out and return an HTTP status; errors set rq->error (and for 400s the
 * offending parameter), which the router turns into a JSON error body. */
#ifndef PROBEX_SERVER_API_H
#define PROBEX_SERVER_API_H

#include <stdbool.h>
#include <stdint.h>

#include "common/json.h"
#include "model/opsel.h"
#include "server/conn.h"
#include "server/params.h"
#include "server/state.h"

struct request {
	struct viewer_state *st;
	struct params p;
	struct json out;
	struct conn_ctx *conn;	/* taken on first use, returned by the router */
	char error[512];
	const char *error_param;
};

typedef int (*api_handler)(struct request *rq);

struct api_route {
	const char *path;		/* after "/api/" */
	api_handler fn;
	unsigned int need;		/* enum load_part bits, and NEED_BASE */
};

/* In a route's need: the same parts of the --base trace too, when there is one. */
#define NEED_BASE (1u << 8)
/* In a route's need: answered from the sorted rows alone, without the process names and
 * values that a --base trace reads last (READY_NAMES, which every other route needs). */
#define ROWS_ONLY (1u << 9)

/* The route for "/api/<name>", or NULL. */
const struct api_route *api__route(const char *name);
/* The parts of the viewed trace a request of `route` waits for: all but the summary and
 * ROWS_ONLY ones may show process names or values.  api__base_need: of the --base trace,
 * for NEED_BASE routes (the base side of a diff needs neither). */
unsigned int api__need(const struct api_route *route);
unsigned int api__base_need(const struct api_route *route);

/* Helpers for handlers. */
int api__bad_param(struct request *rq);			/* 400 from rq->p */
int api__fail(struct request *rq, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct conn_ctx *api__conn(struct request *rq);
/* start_ns/end_ns and an optional pid or tgid (not both) into w; 0 or 400. */
int api__window(struct request *rq, struct window *w);
/* Parameters pid_name (a thread) or tgid_name (a process), at most one, into w. */
int api__who(struct request *rq, const char *pid_name, const char *tgid_name, bool required,
	     struct window *w);
/* Optional max_points (bounded arrays); 0 = unbounded (as in the 0.1 viewer API). */
int api__max_points(struct request *rq, uint64_t *max_points);
/* Write the stack of row rn as JSON (array or null). */
void api__stack(struct request *rq, uint64_t rn);
/* Code of an event-type name present in the trace, or -1. */
int api__type_code(const struct model *m, const char *name, size_t len);

/* Scheduling rows (read on first use; NULL and a 500 when they cannot be), the note on
 * what they lack (with extra, or null), and a blocked interval's waker fields. */
const struct sched *api__sched(struct request *rq);
void api__sched_note(struct request *rq, const struct sched *s, const char *extra);
void api__waker(struct request *rq, const struct sched *s, const struct sched_off *o);

/* Precomputed at load: the two endpoints without parameters. */
char *api__summary_json(const struct model *m, const struct exact_counts *x, const uint32_t *tgids,
			uint32_t ntgids, size_t *len);
struct cmdlines;
int api__lifetimes_json(const struct model *m, const struct cmdlines *cl, char **json,
			size_t *len, char **error);

/* Endpoints. */
int ep_summary(struct request *rq);
int ep_histogram(struct request *rq);
int ep_event_type_counts(struct request *rq);
int ep_pid_event_type_counts(struct request *rq);
int ep_process_lifetimes(struct request *rq);
int ep_process_events(struct request *rq);
int ep_syscall_latency_stats(struct request *rq);
int ep_io_statistics(struct request *rq);
int ep_memory_statistics(struct request *rq);
int ep_event_flamegraph(struct request *rq);
int ep_event_list(struct request *rq);
int ep_thread_states(struct request *rq);
int ep_critical_path(struct request *rq);
int ep_wall_flamegraph(struct request *rq);
int ep_compare(struct request *rq);
int ep_diff_flamegraph(struct request *rq);

#endif
