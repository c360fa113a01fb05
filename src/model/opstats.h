/* Summaries of selected operations (opsel.h): what syscall_latency_stats reports, usable
 * without HTTP. */
#ifndef PROBEX_MODEL_OPSTATS_H
#define PROBEX_MODEL_OPSTATS_H

#include <stdint.h>

#include "model/opsel.h"

/* count, avg, p50 and p95 at index (n-1)*p/100 (the latency row's rule), max; 0 when
 * empty. */
struct lat_summary {
	uint64_t count, avg_ns, p50_ns, p95_ns, max_ns;
};

/* Mean latency of the selection (0 when empty), summed without overflow. */
uint64_t op_sel__lat_avg(const struct op_sel *sel);
/* Sum of the selection's bytes. */
uint64_t op_sel__bytes_sum(const struct op_sel *sel);
void op_sel__lat_summary(const struct op_sel *sel, struct lat_summary *s);

#define SYSCALL_LAT_OPS 3	/* read, write, io_uring */

struct syscall_latency {
	enum op op[SYSCALL_LAT_OPS];
	struct lat_summary lat[SYSCALL_LAT_OPS];
	/* Sums of count over mmap/munmap enter rows in the window, saturating. */
	uint64_t mmap_alloc_bytes, munmap_free_bytes;
	char error[256];	/* with -EINVAL: why the data fails the query */
};

/* syscall_latency_stats over w: 0, -ENOMEM, or -EINVAL with out->error set. */
int model__syscall_latency(const struct model *m, const struct ops *o, const struct window *w,
			   struct syscall_latency *out);

#endif
