/* Exact counts (probex.exact) beside the rows' figures; see ep_exact.h. */
#include <stdio.h>
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

void exact_json__type_counts(struct json *j, const struct exact_counts *x, const struct model *m,
			     const struct window *w, const uint64_t *counts)
{
	bool open = false;

	if (!exact_counts__apply(x, m, w))
		return exact_json__note(j, x, m, w);
	/* Entries come in type order: one sum per type.  Unfinished syscalls are no row type. */
	for (size_t i = 0; i < x->n; i++) {
		const char *type = x->e[i].type;
		struct exact_sum s;
		int code;

		if ((i && !strcmp(type, x->e[i - 1].type)) || is_unfinished(type) ||
		    !exact_counts__sum(x, w, type, &s))
			continue;
		code = api__type_code(m, type, strlen(type));
		if (s.count <= (code < 0 ? 0 : counts[code]))
			continue;
		if (!open) {
			json__key(j, "exact_counts");
			json__obj_begin(j);
			open = true;
		}
		json__key(j, type);
		json__u64(j, s.count);
	}
	if (open)
		json__obj_end(j);
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
