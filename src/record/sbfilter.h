/* The mmap side-band perf events are system-wide (one per CPU, every process): only the
 * records of traced processes may reach the spool, which the user can read.
 *
 * A process is traced when it is the command or was forked by a traced one: the set is
 * fed by the command's pid and every REC_FORK read from the ring buffer.  The two buffers
 * are drained one after the other, so a child's first mmaps can be read before the fork
 * record that makes it known: a record of an unknown pid is held until the ring buffer has
 * been drained once more (which then holds every fork that happened before the mmap), and
 * dropped only if its pid is still unknown.  Called from the consumer thread only. */
#ifndef PROBEX_RECORD_SBFILTER_H
#define PROBEX_RECORD_SBFILTER_H

#include <stdbool.h>
#include <stdint.h>

struct perf_event_header;
struct sbfilter;

typedef int (*sbfilter_emit_fn)(void *ctx, const struct perf_event_header *ev);

struct sbfilter *sbfilter__new(void);
void sbfilter__free(struct sbfilter *f);

/* tgid (and so everything it maps) is traced. */
int sbfilter__add_pid(struct sbfilter *f, uint32_t tgid);

/* Every process is traced (-a): nothing is held or dropped. */
void sbfilter__trace_all(struct sbfilter *f);

/* One side-band record: emitted now when its process is known (or it belongs to no
 * process, such as PERF_RECORD_LOST), else held.  Returns emit's result or -ENOMEM. */
int sbfilter__record(struct sbfilter *f, const struct perf_event_header *ev, sbfilter_emit_fn emit,
		     void *ctx);

/* After a ring-buffer drain: held records whose process is now known are emitted; those
 * held since the previous settle (or all, when final) and still unknown are dropped. */
int sbfilter__settle(struct sbfilter *f, bool final, sbfilter_emit_fn emit, void *ctx);

/* fn(ctx, tgid) for every process known to be traced (none under -a), until fn returns
 * non-zero, which is returned. */
int sbfilter__for_each(const struct sbfilter *f, int (*fn)(void *ctx, uint32_t tgid), void *ctx);

/* Records of untraced processes dropped so far. */
uint64_t sbfilter__dropped(const struct sbfilter *f);

#endif
