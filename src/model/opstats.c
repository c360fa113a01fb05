#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/pct.h"
#include "model/opstats.h"

uint64_t op_sel__lat_avg(const struct op_sel *sel)
{
	unsigned __int128 sum = 0;

	for (uint64_t k = 0; k < sel->n; k++)
		sum += op_sel__lat(sel, k);
	return sel->n ? (uint64_t)(sum / sel->n) : 0;
}

uint64_t op_sel__bytes_sum(const struct op_sel *sel)
{
	uint64_t sum = 0;

	for (uint64_t k = 0; k < sel->n; k++)
		sum += op_sel__bytes(sel, k);
	return sum;
}

void op_sel__lat_summary(const struct op_sel *sel, struct lat_summary *s)
{
	uint64_t n = sel->n;

	s->count = n;
	s->avg_ns = op_sel__lat_avg(sel);
	s->p50_ns = n ? op_sel__lat(sel, pct__index(n, 50)) : 0;
	s->p95_ns = n ? op_sel__lat(sel, pct__index(n, 95)) : 0;
	s->max_ns = n ? op_sel__lat(sel, n - 1) : 0;
}

/* Sum of count over mmap/munmap enter rows in the window (a NULL count fails, as in the
 * 0.1 viewer API), saturating. */
static int enter_bytes(const struct model *m, const struct enter_rows *e, const struct window *w, const char *what,
		       uint64_t *sum, char *error, size_t error_len)
{
	*sum = 0;
	for (uint64_t i = 0; i < e->n; i++) {
		if (e->ts[i] < w->start || e->ts[i] > w->end || !window__takes(m, w, e->pid[i]))
			continue;
		if (!e->has_count[i]) {
			snprintf(error, error_len, "%s row missing required count (pid %u, ts_ns %llu)",
				 what, e->pid[i], (unsigned long long)e->ts[i]);
			return -EINVAL;
		}
		*sum = *sum + e->count[i] < *sum ? UINT64_MAX : *sum + e->count[i];
	}
	return 0;
}

int model__syscall_latency(const struct model *m, const struct ops *o, const struct window *w,
			   struct syscall_latency *out)
{
	static const enum op ops[SYSCALL_LAT_OPS] = { OP_READ, OP_WRITE, OP_IO_URING };
	struct op_sel sel[SYSCALL_LAT_OPS] = { 0 };
	int err = 0;

	memset(out, 0, sizeof(*out));
	for (int i = 0; !err && i < SYSCALL_LAT_OPS; i++) {
		out->op[i] = ops[i];
		if ((err = op_sel__build(&sel[i], m, o, ops[i], w, 0)) == -EINVAL)
			snprintf(out->error, sizeof(out->error), "%s", sel[i].error);
		else if (!err)
			op_sel__lat_summary(&sel[i], &out->lat[i]);
	}
	if (!err)
		err = enter_bytes(m, &o->mmap_enters, w, "syscall_mmap_enter", &out->mmap_alloc_bytes,
				  out->error, sizeof(out->error));
	if (!err)
		err = enter_bytes(m, &o->munmap_enters, w, "syscall_munmap_enter", &out->munmap_free_bytes,
				  out->error, sizeof(out->error));
	for (int i = 0; i < SYSCALL_LAT_OPS; i++)
		op_sel__free(&sel[i]);
	return err;
}
