#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "symbolize/ksym.h"
#include "record/kbtf.h"
#include "record/kresolve.h"
#include "record/loader.h"
#include "record/probes.h"
#include "record/progsyms.h"
#include "record/stats.h"
#include "record/uprobes.h"

#define SIDEBAND_PAGES 64

struct probes {
	struct bpfobj obj;
	int tp_links[PROG__TP_COUNT];	/* < 0: not attached */
	struct ring_buffer *rb;
	struct perf_buffer *sb;
	int *sample_links;		/* < 0: none (the perf event holds the program) */
	int *sample_fds;
	int ncpus;
	int epfd;		/* the ring buffer's epoll and wake_fd */
	int wake_fd;		/* probes__wake: ends a probes__poll wait early */
	uint64_t sb_lost;
	struct probes_opts opts;
};

static double secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int on_rb(void *ctx, void *data, size_t size)
{
	struct probes *p = ctx;

	return p->opts.on_record(p->opts.ctx, data, (uint32_t)size);
}

static enum bpf_perf_event_ret on_sb(void *ctx, int cpu, struct perf_event_header *ev)
{
	struct probes *p = ctx;

	if (ev->type == PERF_RECORD_LOST)
		p->sb_lost += ((uint64_t *)(ev + 1))[1];
	p->opts.on_sideband(p->opts.ctx, ev);
	return LIBBPF_PERF_EVENT_CONT;
}

static int open_sideband(struct probes *p)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.sample_id_all = 1,
		.mmap = 1,
		.mmap2 = 1,
		.comm = 1,
		.comm_exec = 1,
		.build_id = 1,
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,	/* the clock bpf_ktime_get_ns reads */
		.watermark = 1,
		.wakeup_watermark = SIDEBAND_PAGES * 4096 / 4,
	};

	p->sb = perf_buffer__new_raw(p->obj.maps[MAP_sideband], SIDEBAND_PAGES, &attr,
				     on_sb, p, NULL);
	if (!p->sb) {
		log__error("cannot open mmap side-band events: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* A perf link where the kernel has them (5.15); else the event holds the program itself
 * until it is closed (*link stays -1). */
static int attach_sampler(int prog_fd, int perf_fd, int *link)
{
	*link = bpf_link_create(prog_fd, perf_fd, BPF_PERF_EVENT, NULL);
	if (*link >= 0)
		return 0;
	*link = -1;
	if (ioctl(perf_fd, PERF_EVENT_IOC_SET_BPF, prog_fd) || ioctl(perf_fd, PERF_EVENT_IOC_ENABLE, 0))
		return -errno;
	return 0;
}

static int open_samplers(struct probes *p)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = p->opts.sample_freq,
	};
	int opened = 0, err;

	/* One system-wide sampler per CPU, filtered by tgid in the program: unlike one
	 * inherited event per task, forks cost nothing extra and io_uring workers and
	 * daemonized descendants are covered. */
	p->ncpus = libbpf_num_possible_cpus();
	if (p->ncpus <= 0)
		return p->ncpus ? p->ncpus : -EINVAL;
	p->sample_fds = malloc(p->ncpus * sizeof(int));
	p->sample_links = malloc(p->ncpus * sizeof(int));
	if (!p->sample_fds || !p->sample_links)
		return -ENOMEM;
	for (int cpu = 0; cpu < p->ncpus; cpu++)
		p->sample_fds[cpu] = p->sample_links[cpu] = -1;
	for (int cpu = 0; cpu < p->ncpus; cpu++) {
		int fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		p->sample_fds[cpu] = fd;
		if (fd < 0) {
			if (errno == ENODEV)	/* offline CPU */
				continue;
			log__error("perf_event_open(cpu-clock, cpu %d, %lu Hz): %s", cpu,
				   p->opts.sample_freq, strerror(errno));
			return -errno;
		}
		err = attach_sampler(p->obj.progs[PROG_cpu_sample], fd, &p->sample_links[cpu]);
		if (err) {
			log__error("cannot attach the CPU sampler on cpu %d: %s", cpu, strerror(-err));
			return err;
		}
		opened++;
	}
	return opened ? 0 : -ENODEV;
}

/* A tracepoint program is attached by its BTF id, which the load resolved. */
static int attach_tracepoints(struct probes *p)
{
	for (int i = 0; i < PROG__TP_COUNT; i++) {
		if (p->obj.progs[i] < 0)
			continue;
		p->tp_links[i] = bpf_raw_tracepoint_open(NULL, p->obj.progs[i]);
		if (p->tp_links[i] < 0) {
			log__error("cannot attach the BPF program %s: %s", bpfobj__prog_names[i],
				   strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* One epoll over the ring buffer's own and an eventfd, so that a consumer waiting for
 * records can be told to stop at once rather than at its next timeout. */
static int open_poll(struct probes *p)
{
	struct epoll_event rb = { .events = EPOLLIN, .data.fd = ring_buffer__epoll_fd(p->rb) };
	struct epoll_event wake = { .events = EPOLLIN };

	p->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	wake.data.fd = p->wake_fd;
	if (p->wake_fd < 0 || p->epfd < 0 || epoll_ctl(p->epfd, EPOLL_CTL_ADD, rb.data.fd, &rb) ||
	    epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->wake_fd, &wake)) {
		log__error("cannot poll the ring buffer: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* The kernel→user ring buffer unless set: 2 MiB a CPU and at least 4 MiB (a power of
 * two).  Not larger: each page costs a fault the first time the kernel writes it and
 * again when we read it, so a CPU sample of a thread cost twice as much with 16 MiB.
 * Not smaller needed: the consumer wakes at 1/16 full and polls every 10 ms, and the
 * bench's heaviest rows drop nothing even at 1 MiB. */
static unsigned long default_ringbuf_bytes(void)
{
	int ncpus = libbpf_num_possible_cpus();
	unsigned long kib = 4096;

	while (ncpus > 0 && kib < 2048ul * (unsigned long)ncpus && kib < 4194304)
		kib *= 2;
	return kib * 1024;
}

int probes__open(struct probes **pp, const struct probes_opts *opts)
{
	double t0 = secs();
	struct probes *p;
	int err;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->epfd = p->wake_fd = -1;
	for (int i = 0; i < PROG__TP_COUNT; i++)
		p->tp_links[i] = -1;
	p->opts = *opts;
	if (!p->opts.ringbuf_bytes)
		p->opts.ringbuf_bytes = default_ringbuf_bytes();
	if (p->opts.uprobes && p->opts.uprobes->n)
		kbtf__prefetch();
	err = bpfobj__load(&p->obj, &p->opts);
	log__debug("probes: loaded %.3f s (%s skeleton)", secs() - t0, p->obj.light ? "light" : "libbpf");
	if (err) {
		kbtf__prefetch_end();
		bpfobj__close(&p->obj);
		free(p);
		return err;
	}
	err = attach_tracepoints(p);
	if (!err && p->opts.uprobes && p->opts.uprobes->n)
		err = uprobes__attach(p->opts.uprobes, p->obj.maps, &p->opts);
	kbtf__prefetch_end();	/* untaken if the probes' load failed before its BTF */
	if (err)
		goto cleanup;
	log__debug("probes: attached %.3f s", secs() - t0);
	err = open_samplers(p);
	if (err)
		goto cleanup;
	err = open_sideband(p);
	if (err)
		goto cleanup;
	p->rb = ring_buffer__new(p->obj.maps[MAP_rb], on_rb, p, NULL);
	if (!p->rb) {
		err = -errno;
		log__error("cannot open the ring buffer: %s", strerror(-err));
		goto cleanup;
	}
	err = open_poll(p);
	if (err)
		goto cleanup;
	log__debug("probes: ready %.3f s", secs() - t0);
	*pp = p;
	return 0;
cleanup:
	probes__close(p);
	return err;
}

int probes__trace_pid(struct probes *p, uint32_t tgid)
{
	uint8_t one = 1;

	/* Recording starts at the process's exec (sched_process_exec); the tgid map makes
	 * it part of the tree for stopping it right away. */
	*p->obj.root_tgid = tgid;
	if (bpf_map_update_elem(p->obj.maps[MAP_traced], &tgid, &one, BPF_ANY))
		return -errno;
	return 0;
}

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL	/* Linux 6.9: a pidfd for a thread, not only a leader */
#endif

/* Give one thread its (empty) per-thread state: from now on it is traced.  A task
 * storage map is keyed by pidfd from user space. */
static int trace_thread(struct probes *p, pid_t tid, bool leader)
{
	struct tstate zero = { 0 };
	int fd, err = 0;

	fd = (int)syscall(SYS_pidfd_open, tid, leader ? 0 : PIDFD_THREAD);
	if (fd < 0)
		return errno == EINVAL ? -EOPNOTSUPP : -errno;
	if (bpf_map_update_elem(p->obj.maps[MAP_tstates], &fd, &zero, BPF_NOEXIST) &&
	    errno != EEXIST)
		err = -errno;
	close(fd);
	return err;
}

int probes__attach_pid(struct probes *p, uint32_t tgid)
{
	char path[64];
	struct dirent *d;
	uint8_t one = 1;
	int err = 0, n = 0;
	DIR *dir;

	/* First in the traced set, so that threads and processes it creates while we walk
	 * its threads are followed by task_newtask (which needs a traced parent thread). */
	if (bpf_map_update_elem(p->obj.maps[MAP_traced], &tgid, &one, BPF_ANY))
		return -errno;
	err = trace_thread(p, (pid_t)tgid, true);
	snprintf(path, sizeof(path), "/proc/%u/task", tgid);
	dir = opendir(path);
	if (!dir)
		err = err ? err : -ESRCH;
	while (!err && (d = readdir(dir))) {
		long tid = strtol(d->d_name, NULL, 10);

		if (tid <= 0 || tid == (long)tgid)
			continue;
		err = trace_thread(p, (pid_t)tid, false);
		if (err == -ESRCH)	/* a thread that just ended */
			err = 0;
		n++;
	}
	if (dir)
		closedir(dir);
	if (err == -EOPNOTSUPP)
		log__error("cannot attach to the threads of %u: this kernel has no thread pidfds (Linux 6.9+)", tgid);
	log__debug("attached to %u and %d more threads", tgid, n);
	return err;
}

int probes__poll(struct probes *p, int timeout_ms)
{
	struct epoll_event ev[2];
	eventfd_t v;
	int m, n = 0;

	/* Producers rarely wake us (see wakeup_bytes): wait, then consume regardless. */
	if (timeout_ms && (n = epoll_wait(p->epfd, ev, 2, timeout_ms)) < 0 && errno != EINTR)
		return -errno;
	for (int i = 0; i < n; i++)
		if (ev[i].data.fd == p->wake_fd)
			eventfd_read(p->wake_fd, &v);	/* the wake is taken */
	m = ring_buffer__consume(p->rb);
	if (m < 0)
		return m;
	if (perf_buffer__consume(p->sb) < 0)
		return -EIO;
	return m;
}

void probes__wake(struct probes *p)
{
	if (p)
		eventfd_write(p->wake_fd, 1);
}

int probes__counters(struct probes *p, uint64_t out[CNT__COUNT])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals;
	uint32_t zero = 0;

	memset(out, 0, sizeof(uint64_t) * CNT__COUNT);
	vals = calloc((size_t)ncpu, sizeof(uint64_t) * CNT__COUNT);
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(p->obj.maps[MAP_counters], &zero, vals)) {
		free(vals);
		return -errno;
	}
	for (int c = 0; c < ncpu; c++)
		for (int i = 0; i < CNT__COUNT; i++)
			out[i] += vals[(size_t)c * CNT__COUNT + i];
	free(vals);
	return 0;
}

int probes__stats(struct probes *p, struct strbuf *out, uint64_t per_kind[REC__COUNT])
{
	return stats__read(p->obj.maps[MAP_stats], p->obj.maps[MAP_stats_spill], out, per_kind);
}

int probes__ring(const struct probes *p, uint64_t *bytes)
{
	*bytes = p->opts.ringbuf_bytes;
	return p->obj.maps[MAP_rb];
}

uint64_t probes__sideband_lost(const struct probes *p)
{
	return p->sb_lost;
}

int probes__traced_pids(struct probes *p, uint32_t *pids, int max)
{
	int fd = p->obj.maps[MAP_traced], n = 0;
	uint32_t key, next;
	uint32_t *prev = NULL;

	while (n < max && bpf_map_get_next_key(fd, prev, &next) == 0) {
		pids[n++] = next;
		key = next;
		prev = &key;
	}
	return n;
}

int probes__traced_map_fd(const struct probes *p)
{
	return p->obj.maps[MAP_traced];
}

int probes__map_fd(const struct probes *p, int map)
{
	return map >= 0 && map < MAP__COUNT ? p->obj.maps[map] : -1;
}

int probes__guard_fds(const struct probes *p, int *fds, int max)
{
	int links[] = { p->tp_links[PROG_task_newtask], p->tp_links[PROG_sched_process_exit] };
	int n = 0;

	if (max < 1)
		return 0;
	fds[n++] = probes__traced_map_fd(p);
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]) && n < max; i++)
		if (links[i] >= 0)
			fds[n++] = links[i];
	return n;
}

const char *probes__missing(const struct probes *p)
{
	return p->obj.missing;
}

void probes__close(struct probes *p)
{
	if (!p)
		return;
	/* First: detaching uprobes waits longest on the kernel (grace periods). */
	uprobes__close(p->opts.uprobes);
	if (p->epfd >= 0)
		close(p->epfd);
	if (p->wake_fd >= 0)
		close(p->wake_fd);
	ring_buffer__free(p->rb);
	perf_buffer__free(p->sb);
	for (int cpu = 0; p->sample_links && cpu < p->ncpus; cpu++)
		if (p->sample_links[cpu] >= 0)
			close(p->sample_links[cpu]);
	for (int cpu = 0; p->sample_fds && cpu < p->ncpus; cpu++)
		if (p->sample_fds[cpu] >= 0)
			close(p->sample_fds[cpu]);
	free(p->sample_links);
	free(p->sample_fds);
	for (int i = 0; i < PROG__TP_COUNT; i++)
		if (p->tp_links[i] >= 0)
			close(p->tp_links[i]);
	bpfobj__close(&p->obj);
	free(p);
}

static void *close_main(void *arg)
{
	probes__close(arg);
	return NULL;
}

void probes__close_async(struct probes *p)
{
	pthread_t t;

	if (!p)
		return;
	if (pthread_create(&t, NULL, close_main, p)) {
		probes__close(p);
		return;
	}
	pthread_detach(t);
}

void probes__prog_syms(const struct probes *p, struct ksym_add **out, size_t *n)
{
	progsyms__read(p->obj.progs, bpfobj__prog_names, PROG__COUNT, out, n);
}

struct ksyms *probes__ksyms(const struct probes *p)
{
	return kresolve__ksyms(p->obj.progs[PROG_ksym_lookup], p->obj.maps[MAP_ksym_buf]);
}
