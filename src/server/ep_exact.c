/* Exact counts (probex.exact) beside the rows' figures; see ep_exact.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/api.h"
#include "server/ep_exact.h"

void exact_json__summary(struct json *j, const struct exact_counts *x)
{
	if (x->dropped) {
		json__key(j, "dropped_records");
		json__u64(j, x->dropped);
	}
	if (x->present) {
		json__key(j, "exact_records");
		json__u64(j, x->counted);
	}
}

static bool is_unfinished(const char *type)
{
	size_t n = strlen(type), k = strlen("_unfinished");

	return n > k && !strcmp(type + n - k, "_unfinished");
}

struct type_count {
	const char *type;
	uint64_t count;
};

static int cmp_type_count(const void *a, const void *b)
{
	return strcmp(((const struct type_count *)a)->type, ((const struct type_count *)b)->type);
}

/* A syscall's enter rows: one per exit and per unfinished call.  Only when rows were
 * dropped: a command's own execve returns without an enter row (it is traced from its
 * return), and that gap is no loss. */
static bool enter_count(const struct exact_counts *x, const struct window *w, const char *type,
			uint64_t *n)
{
	size_t len = strlen(type), k = strlen("_enter");
	struct exact_sum s;
	char name[256];
	bool found;

	if (!x->dropped || strncmp(type, "syscall_", 8) || len <= k || strcmp(type + len - k, "_enter") ||
	    len - k + strlen("_unfinished") >= sizeof(name))
		return false;
	snprintf(name, sizeof(name), "%.*s_exit", (int)(len - k), type);
	found = exact_counts__sum(x, w, name, &s);
	*n = s.count;
	snprintf(name, sizeof(name), "%.*s_unfinished", (int)(len - k), type);
	found |= exact_counts__sum(x, w, name, &s);
	*n += s.count;
	return found;
}

/* The exact counts above the rows: the types the entries name (entries come in type
 * order; unfinished syscalls are no row type), then the trace's enter types. */
static size_t above_rows(const struct exact_counts *x, const struct model *m, const struct window *w,
			 const uint64_t *counts, struct type_count *out)
{
	struct exact_sum s;
	size_t n = 0;
	uint64_t c;

	for (size_t i = 0; i < x->n; i++) {
		const char *type = x->e[i].type;
		int code;

		if ((i && !strcmp(type, x->e[i - 1].type)) || is_unfinished(type) ||
		    !exact_counts__sum(x, w, type, &s))
			continue;
		code = api__type_code(m, type, strlen(type));
		if (s.count > (code < 0 ? 0 : counts[code]))
			out[n++] = (struct type_count){ type, s.count };
	}
	for (unsigned int code = 0; code < m->ntypes; code++)
		if (enter_count(x, w, m->type_names[code], &c) && c > counts[code])
			out[n++] = (struct type_count){ m->type_names[code], c };
	return n;
}

void exact_json__type_counts(struct json *j, const struct exact_counts *x, const struct model *m,
			     const struct window *w, const uint64_t *counts)
{
	struct type_count *tc;
	size_t n;

	if (!exact_counts__apply(x, m, w))
		return exact_json__note(j, x, m, w);
	tc = malloc((x->n + m->ntypes + 1) * sizeof(*tc));
	if (!tc)
		return;
	n = above_rows(x, m, w, counts, tc);
	qsort(tc, n, sizeof(*tc), cmp_type_count);
	if (n) {
		json__key(j, "exact_counts");
		json__obj_begin(j);
		for (size_t i = 0; i < n; i++) {
			json__key(j, tc[i].type);
			json__u64(j, tc[i].count);
		}
		json__obj_end(j);
	}
	free(tc);
}

void exact_json__op_type(const char *op, char *type, size_t size)
{
	if (!strcmp(op, "io_uring"))
		snprintf(type, size, "io_uring_complete");
	else
		snprintf(type, size, "syscall_%s_exit", op);
}

void exact_json__op(struct json *j, const struct exact_counts *x, const struct model *m,
		    const struct window *w, const char *type, uint64_t n)
{
	struct exact_sum s;

	if (!exact_counts__apply(x, m, w) || !exact_counts__sum(x, w, type, &s) || s.count <= n)
		return;
	json__key(j, "exact_count");
	json__u64(j, s.count);
	json__key(j, "exact_errors");
	json__u64(j, s.errors);
	json__key(j, "exact_total_ns");
	json__u64(j, s.total_ns);
	json__key(j, "incomplete");
	json__bool(j, true);
}

void exact_json__note(struct json *j, const struct exact_counts *x, const struct model *m,
		      const struct window *w)
{
	if (!x->present || !x->dropped || exact_counts__apply(x, m, w))
		return;
	json__key(j, "note");
	if (w->start > m->min_ts || w->end < m->max_ts)
		json__str(j, "rows were dropped; the exact counts cover the whole recording, not a "
			     "narrower window: these figures rest on the rows kept");
	else
		json__str(j, "rows were dropped; the exact counts are per process and this pid's "
			     "process has other threads: these figures rest on the rows kept");
}
