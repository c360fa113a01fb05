#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "server/api.h"

static const struct api_route routes[] = {
	{ "summary", ep_summary, READY_SUMMARY },
	{ "process_lifetimes", ep_process_lifetimes, READY_ROWS },
	{ "process_events", ep_process_events, READY_ROWS },
	{ "histogram", ep_histogram, READY_ROWS | ROWS_ONLY },
	{ "event_type_counts", ep_event_type_counts, READY_ROWS },
	{ "pid_event_type_counts", ep_pid_event_type_counts, READY_ROWS },
	{ "syscall_latency_stats", ep_syscall_latency_stats, READY_OPS },
	/* These show stacks, which the second pass over the file provides. */
	{ "event_flamegraph", ep_event_flamegraph, READY_STACKS },
	{ "io_statistics", ep_io_statistics, READY_OPS | READY_STACKS },
	{ "memory_statistics", ep_memory_statistics, READY_OPS | READY_STACKS },
	{ "event_list", ep_event_list, READY_STACKS },
	{ "thread_states", ep_thread_states, READY_STACKS },
	{ "critical_path", ep_critical_path, READY_STACKS },
	{ "wall_flamegraph", ep_wall_flamegraph, READY_STACKS },
	/* The compare view (ep_diff.c). */
	{ "compare", ep_compare, 0 },
	{ "diff_flamegraph", ep_diff_flamegraph, READY_STACKS | NEED_BASE },
};

const struct api_route *api__route(const char *name)
{
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (!strcmp(routes[i].path, name))
			return &routes[i];
	return NULL;
}

unsigned int api__base_need(const struct api_route *route)
{
	return route->need & ~(NEED_BASE | ROWS_ONLY);
}

unsigned int api__need(const struct api_route *route)
{
	unsigned int need = api__base_need(route);

	return (need & ~READY_SUMMARY) && !(route->need & ROWS_ONLY) ? need | READY_NAMES : need;
}

int api__bad_param(struct request *rq)
{
	snprintf(rq->error, sizeof(rq->error), "%s", rq->p.msg);
	rq->error_param = rq->p.bad;
	return 400;
}

int api__fail(struct request *rq, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rq->error, sizeof(rq->error), fmt, ap);
	va_end(ap);
	return status;
}

struct conn_ctx *api__conn(struct request *rq)
{
	if (!rq->conn)
		rq->conn = conn__get(rq->st);
	return rq->conn;
}

int api__who(struct request *rq, const char *pid_name, const char *tgid_name, bool required,
	     struct window *w)
{
	uint64_t pid = 0, tgid = 0;
	bool has = false, has_tgid = false;

	if (params__u64(&rq->p, pid_name, false, UINT32_MAX, &pid, &has) ||
	    params__u64(&rq->p, tgid_name, false, UINT32_MAX, &tgid, &has_tgid))
		return api__bad_param(rq);
	if (has && has_tgid) {
		rq->error_param = tgid_name;
		return api__fail(rq, 400, "give '%s' (a thread) or '%s' (a process), not both",
				 pid_name, tgid_name);
	}
	if (required && !has && !has_tgid) {
		rq->error_param = pid_name;
		return api__fail(rq, 400, "missing parameter '%s'", pid_name);
	}
	w->has_pid = has;
	w->pid = (uint32_t)pid;
	w->has_tgid = has_tgid;
	w->tgid = (uint32_t)tgid;
	return 0;
}

int api__window(struct request *rq, struct window *w)
{
	memset(w, 0, sizeof(*w));
	if (params__range(&rq->p, &w->start, &w->end))
		return api__bad_param(rq);
	return api__who(rq, "pid", "tgid", false, w);
}

int api__max_points(struct request *rq, uint64_t *max_points)
{
	/* Bounded output is opt-in so the 0.1 viewer API's fields keep their meaning. */
	if (params__count(&rq->p, "max_points", false, 1000000, 0, max_points))
		return api__bad_param(rq);
	return 0;
}

void api__stack(struct request *rq, uint64_t rn)
{
	const struct model *m = &rq->st->m;
	uint32_t id = __atomic_load_n(&m->stack, __ATOMIC_ACQUIRE) ? model__stack(m, rn) : STACK_NULL;

	if (id == STACK_NULL || id >= m->nstacks)
		json__null(&rq->out);
	else
		json__raw(&rq->out, m->stack_json[id], m->stack_json_len[id]);
}

int api__type_code(const struct model *m, const char *name, size_t len)
{
	for (unsigned int c = 0; c < m->ntypes; c++)
		if (strlen(m->type_names[c]) == len && !memcmp(m->type_names[c], name, len))
			return (int)c;
	return -1;
}
