/* The consumer thread of a recording session: ring buffer and side-band records into the
 * spool (session.c runs everything else). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/log.h"
#include "common/priv.h"
#include "common/test_hooks.h"
#include "record/consumer_cpu.h"
#include "record/lossless.h"
#include "record/perfmaps.h"
#include "record/probes.h"
#include "record/python.h"
#include "record/sbfilter.h"
#include "record/session.h"
#include "record/unwload.h"
#include "spool/spool.h"

/* Room kept under --max-size for the end-of-session item. */
#define SPOOL_END_RESERVE (64u << 10)

/* A record with a stack copy is reserved at its largest: spool it packed (records.h),
 * without the unused kernel-frame room and stack bytes. */
static int append_copy(struct session *s, const void *data, uint32_t size)
{
	const struct rec_hdr *h = data;
	uint32_t fixed = rec_fixed_size(h->kind), off = rec_ustack_off(fixed), head, tail;
	const struct rec_ustack *u = (const struct rec_ustack *)((const char *)data + off);

	if (!fixed || h->kstack_n > PROBEX_MAX_FRAMES || size < off + sizeof(*u) ||
	    u->nwalk > UNW_MAX_FRAMES || u->len + u->nwalk * 8ull > size - off - sizeof(*u))
		return spool_writer__append(s->spool, SPOOL_BPF, data, size);
	if (!s->pack) {
		s->pack = malloc(rec_ustack_off(REC_MAX_FIXED) + sizeof(*u) + UNW_MAX_FRAMES * 8 +
				 PROBEX_USTACK_MAX + PY_SECTION_MAX);
		if (!s->pack)
			return -ENOMEM;
	}
	head = rec_spool_ustack_off(fixed, h->kstack_n);
	/* The walked frames, the stack bytes, and the Python frames after them. */
	tail = size - off;
	if (tail > sizeof(*u) + UNW_MAX_FRAMES * 8 + PROBEX_USTACK_MAX + PY_SECTION_MAX)
		return spool_writer__append(s->spool, SPOOL_BPF, data, size);
	memcpy(s->pack, data, head);
	memcpy(s->pack + head, u, tail);
	return spool_writer__append(s->spool, SPOOL_BPF, s->pack, head + tail);
}

/* --max-size: would this item take the spool past it?  The first time, tell the main
 * thread, which stops the tree; later items are dropped (the recording has ended). */
static bool spool_full(struct session *s, uint32_t size)
{
	uint64_t max = s->opts->max_spool_bytes;

	if (!max)
		return false;
	if (atomic_load_explicit(&s->full, memory_order_relaxed))
		return true;
	if (spool_writer__bytes(s->spool) + 8 + ((size + 7u) & ~7u) <= max - SPOOL_END_RESERVE)
		return false;
	atomic_store(&s->full, true);
	eventfd_write(s->wake_fd, 1);
	return true;
}

int session__on_record(void *ctx, const void *data, uint32_t size)
{
	struct session *s = ctx;
	const struct rec_hdr *h = data;
	const struct rec_fork *fk = data;
	int err;

	if (spool_full(s, size))
		return 0;
	s->records++;
	if (size >= sizeof(*h))
		consumer_cpu__note(s->ccpu, h->cpu);
	if (s->py && (err = pyrec__on_record(s->py, data, size)))
		return err;
	if (size >= sizeof(*fk) && h->kind == REC_FORK) {
		/* A traced process's children are traced: their mappings may be spooled. */
		if (fk->child_tgid != h->tgid) {
			sbfilter__add_pid(s->sbf, fk->child_tgid);
			unwload__fork(s->unw, h->tgid, fk->child_tgid);
		}
		/* --ring: the forks that shaped the address spaces outlive their segment. */
		return spool_writer__append_side(s->spool, SPOOL_BPF, data, size, SPOOL_SIDE_BPF);
	}
	if (size >= sizeof(struct rec_exit) && h->kind == REC_EXIT &&
	    ((const struct rec_exit *)data)->group_dead)
		unwload__exit(s->unw, h->tgid);
	if (size >= sizeof(*h) && (h->flags & REC_F_USTACK_COPY))
		return append_copy(s, data, size);
	if (size >= sizeof(struct rec_exec) && h->kind == REC_EXEC) {
		const struct rec_exec *x = data;

		/* Reserved with room for the longest command line: spool what it holds. */
		if (sizeof(*x) + x->argv_len < size)
			size = (uint32_t)sizeof(*x) + x->argv_len;
	}
	return spool_writer__append(s->spool, SPOOL_BPF, data, size);
}

static int spool_sideband(void *ctx, const struct perf_event_header *ev)
{
	struct session *s = ctx;
	const uint16_t *size = (const uint16_t *)ev + 3;	/* perf_event_header.size */

	unwload__sideband(s->unw, ev);
	if (spool_full(s, *size))
		return 0;
	/* --ring: mappings and execs outlive their segment (the stacks need them). */
	return spool_writer__append_side(s->spool, SPOOL_PERF, ev, *size, SPOOL_PERF);
}

void session__on_sideband(void *ctx, const struct perf_event_header *ev)
{
	struct session *s = ctx;

	sbfilter__record(s->sbf, ev, spool_sideband, s);
}

struct exited_maps {
	struct perfmaps *pm;
	struct spool_writer *w;
};

static int exited_map(void *ctx, uint32_t tgid)
{
	struct exited_maps *e = ctx;

	return perfmaps__poll_one(e->pm, tgid, e->w);
}

/* The command's user: under sudo the one it runs as, else ours. */
static uid_t command_uid(const struct session *s)
{
	return s->priv && s->priv->valid ? s->priv->uid : getuid();
}

/* The consumer runs before the traced threads whenever it has records to drain: at their
 * priority, a burst of 300 threads left it so little CPU that 91% of the records were
 * dropped; as the lowest real-time priority, none (4 MiB ring, 2 CPUs).  It sleeps
 * whenever the buffer is empty, and the kernel keeps 5% of each CPU for the others. */
static void consumer_priority(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	int err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

	if (err)
		log__debug("consumer: no real-time priority (%s): it competes with the traced threads",
			   strerror(err));
}

/* Off the CPUs the traced threads keep busy (consumer_cpu.h), with the --lossless
 * watcher, also real-time. */
static void consumer_move(struct session *s)
{
	cpu_set_t set;
	int err;

	if (!s->ccpu || !consumer_cpu__repick(s->ccpu, &set))
		return;
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (err)
		log__debug("consumer: cannot move to other CPUs (%s)", strerror(err));
	lossless__set_cpus(s->lossless, &set);
}

void *session__consumer_main(void *arg)
{
	struct session *s = arg;
	/* Tests simulate a consumer that cannot keep up, to check that drops are counted. */
	int n, delay_ms = test_hooks__consumer_delay_ms();
	struct perfmaps *pm = NULL;
	unsigned int cycle = 0;

	consumer_priority();
	if (consumer_cpu__new(&s->ccpu))
		log__debug("consumer: no memory to follow the traced threads' CPUs");
	if (perfmaps__new(&pm, command_uid(s)))
		log__warn("no memory to copy JIT maps: JIT frames will be addresses");
	while (!atomic_load(&s->stop_consumer)) {
		if (delay_ms > 0)
			usleep(delay_ms * 1000);
		n = probes__poll(s->probes, 10);
		/* What was taken from the ring goes to the page cache before anything slower:
		 * a SIGKILL between the two would lose records the ring no longer holds. */
		if (n >= 0)
			n = spool_writer__flush(s->spool);
		if (n >= 0)
			consumer_move(s);
		if (n >= 0)
			n = sbfilter__settle(s->sbf, false, spool_sideband, s);
		if (n >= 0 && s->py)
			pyrec__poll(s->py);
		/* JIT maps every ~100 ms: a map is copied while its process lives. */
		if (n >= 0 && pm && ++cycle % 10 == 0)
			n = perfmaps__poll(pm, probes__traced_map_fd(s->probes), s->spool);
		/* Hand what we have to the kernel every cycle: if probex is killed, the page
		 * cache still holds it for `probex recover`. */
		if (n >= 0)
			n = spool_writer__flush(s->spool);
		if (n < 0)
			goto out;
	}
	/* Final drain: everything the kernel produced before the tree ended. */
	do {
		n = probes__poll(s->probes, 0);
		if (n < 0)
			goto out;
	} while (n > 0);
	/* Both buffers are empty: every fork is known, what is still unknown is foreign. */
	n = sbfilter__settle(s->sbf, true, spool_sideband, s);
	if (pm && n >= 0)
		n = perfmaps__poll(pm, probes__traced_map_fd(s->probes), s->spool);
	/* And the maps of every process traced, exited ones included (written at exit). */
	if (pm && n >= 0)
		n = sbfilter__for_each(s->sbf, exited_map, &(struct exited_maps){ pm, s->spool });
	if (n >= 0)
		n = spool_writer__flush(s->spool);
out:
	perfmaps__free(pm);
	consumer_cpu__free(s->ccpu);
	s->ccpu = NULL;
	if (n < 0) {
		atomic_store(&s->consumer_err, n);
		eventfd_write(s->wake_fd, 1);
	}
	return NULL;
}
