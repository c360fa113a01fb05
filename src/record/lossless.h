/* --lossless: the traced tree runs in a cgroup of its own, frozen (cgroup v2 freezer)
 * while the ring buffer is past its high-water mark and thawed once the consumer has
 * drained it.  probex itself is never in that cgroup. */
#ifndef PROBEX_RECORD_LOSSLESS_H
#define PROBEX_RECORD_LOSSLESS_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct lossless;

/* Create the cgroup (a child of probex's own cgroup v2, else of the hierarchy's root).
 * 0, or a negative errno after saying why. */
int lossless__open(struct lossless **l);
/* The ring buffer size for --lossless: asked (0: the default, large enough), raised if
 * it leaves too little room above the high-water mark for records of up to
 * ustack_copy_bytes of stack (saying so). */
unsigned long lossless__ring_bytes(unsigned long asked, uint32_t ustack_copy_bytes);
/* Move a process (stopped before its exec) into the cgroup. */
int lossless__add(struct lossless *l, pid_t pid);
/* Start watching the ring buffer map rb_fd of rb_bytes, in a thread of its own: freeze
 * past the high-water mark, thaw under the low. */
int lossless__watch(struct lossless *l, int rb_fd, uint64_t rb_bytes);
/* Run the watcher on these CPUs (the consumer's: consumer_cpu.h).  Any thread; l may be
 * NULL. */
void lossless__set_cpus(struct lossless *l, const cpu_set_t *set);
/* Thaw for good (a stop was asked for: the tree must see its signals).  Any thread. */
void lossless__release(struct lossless *l);
/* cgroup.freeze, for the guardian to thaw the tree if probex dies. */
int lossless__freeze_fd(const struct lossless *l);
/* The recording has ended: stop watching (thawed), then the times the tree was frozen
 * and the time it took in all. */
void lossless__stats(struct lossless *l, uint64_t *pauses, uint64_t *paused_ns);
/* Stop watching, thaw, remove the cgroup (once empty) and free. */
void lossless__close(struct lossless *l);

#endif
