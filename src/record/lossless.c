/* --lossless through the cgroup v2 freezer.  A watcher thread of its own decides, not the
 * consumer: the consumer may be the slow part (a spool write), and the watcher must run
 * while it is.  Freezing is asynchronous: each traced thread stops on its way back to
 * user space, so the ring buffer keeps room above the high-water mark for what is in
 * flight (a record per running thread, at most). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "record/lossless.h"

/* Fractions of the ring buffer: freeze past 1/4, thaw under 1/16. */
#define HIGH_SHIFT 2
#define LOW_SHIFT 4

struct lossless {
	char dir[512];
	int freeze_fd, procs_fd;
	const volatile uint64_t *cons_pos, *prod_pos;	/* the ring buffer's two pages */
	void *cons_page, *prod_page;
	size_t page;
	uint64_t high, low;
	bool frozen;		/* the watcher's */
	atomic_bool released, stop;
	uint64_t frozen_at, paused_ns, pauses;
	int epfd, stop_fd;
	pthread_t watcher;
	bool started;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The cgroup2 mount point, from /proc/self/mountinfo. */
static int cgroup2_mount(char *out, size_t size)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		char mnt[512];
		const char *sep = strstr(line, " - cgroup2 ");

		if (sep && sscanf(line, "%*s %*s %*s %*s %511s", mnt) == 1) {
			snprintf(out, size, "%s", mnt);
			err = 0;
		}
	}
	fclose(f);
	return err;
}

/* probex's own cgroup v2 path ("0::/path" in /proc/self/cgroup), "" for the root. */
static void own_cgroup(char *out, size_t size)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[512];

	out[0] = 0;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(out, size, "%.*s", (int)(size - 1), strcmp(line + 3, "/") ? line + 3 : "");
		}
	if (f)
		fclose(f);
}

static int make_dir(struct lossless *l, const char *mnt, const char *parent)
{
	char path[600];

	snprintf(l->dir, sizeof(l->dir), "%s%s/probex-%d", mnt, parent, (int)getpid());
	if (mkdir(l->dir, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/cgroup.freeze", l->dir);
	l->freeze_fd = open(path, O_WRONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/cgroup.procs", l->dir);
	l->procs_fd = open(path, O_WRONLY | O_CLOEXEC);
	if (l->freeze_fd < 0 || l->procs_fd < 0) {
		int err = errno == ENOENT ? -EOPNOTSUPP : -errno;

		rmdir(l->dir);
		return err;
	}
	return 0;
}

int lossless__open(struct lossless **lp)
{
	struct lossless *l = calloc(1, sizeof(*l));
	char mnt[512], own[512];
	int err;

	if (!l)
		return -ENOMEM;
	l->freeze_fd = l->procs_fd = l->epfd = l->stop_fd = -1;
	err = cgroup2_mount(mnt, sizeof(mnt));
	if (err) {
		log__error("--lossless needs the cgroup v2 freezer, and no cgroup2 file system is mounted");
		free(l);
		return err;
	}
	own_cgroup(own, sizeof(own));
	err = make_dir(l, mnt, own);
	if (err && own[0])
		err = make_dir(l, mnt, "");
	if (err) {
		log__error("--lossless: cannot create a cgroup under %s: %s%s", mnt, strerror(-err),
			   err == -EOPNOTSUPP ? " (the cgroup v2 freezer needs Linux 5.2)" : "");
		free(l);
		return err;
	}
	log__debug("--lossless: cgroup %s", l->dir);
	*lp = l;
	return 0;
}

/* What is in flight when the freeze is asked must fit in the 3/4 above the mark: say 4
 * of the largest records a CPU (a 64 KiB ring, 16 KiB stack copies, lost 1% of a fork
 * storm's rows). */
#define LOSSLESS_RING_DEFAULT (16ul << 20)

unsigned long lossless__ring_bytes(unsigned long asked, uint32_t ustack_copy_bytes)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long need = 16ul * (unsigned long)(ncpus > 0 ? ncpus : 1) *
			     (ustack_copy_bytes + 4096ul) / 3, bytes = asked;

	/* Unless asked otherwise, 16 MiB: at the 4 MiB default, 2000 threads making syscalls
	 * put 3-6 of ~1M records past the end while the freeze took effect. */
	if (!asked) {
		for (bytes = LOSSLESS_RING_DEFAULT; bytes < need; bytes *= 2)
			;
		return bytes;
	}
	if (asked >= need)
		return asked;
	while (bytes < need)
		bytes *= 2;
	log__info("--lossless: ring buffer raised to %lu KiB (from %lu): room for what is in "
		  "flight while the traced processes are paused", bytes >> 10, asked >> 10);
	return bytes;
}

int lossless__add(struct lossless *l, pid_t pid)
{
	char buf[16];
	int n = snprintf(buf, sizeof(buf), "%d", (int)pid);

	if (write(l->procs_fd, buf, (size_t)n) != n) {
		log__error("--lossless: cannot move pid %d into %s: %s", (int)pid, l->dir, strerror(errno));
		return -errno;
	}
	return 0;
}

static void set_frozen(struct lossless *l, bool on)
{
	if (pwrite(l->freeze_fd, on ? "1" : "0", 1, 0) != 1) {
		log__warn("--lossless: cannot %s the traced processes: %s", on ? "pause" : "resume",
			  strerror(errno));
		return;
	}
	if (on) {
		l->frozen_at = now_ns();
		l->pauses++;
	} else {
		l->paused_ns += now_ns() - l->frozen_at;
	}
	l->frozen = on;
}

static void check(struct lossless *l)
{
	uint64_t used = *l->prod_pos - *l->cons_pos;

	if (l->frozen && (used < l->low || atomic_load(&l->released)))
		set_frozen(l, false);
	else if (!l->frozen && used >= l->high && !atomic_load(&l->released))
		set_frozen(l, true);
}

/* Woken by the ring buffer's wake-ups (one per 1/16 of it, edge-triggered here); while
 * frozen, every millisecond, to thaw as soon as the consumer has drained it; and as
 * often while past the thaw mark: a wake-up is missed when a record (a 16 KiB stack
 * copy) jumps over its window.  Above the consumer's real-time priority, so that a
 * draining consumer cannot hold it off. */
static void *watch_main(void *arg)
{
	struct sched_param sp = { .sched_priority = 2 };
	struct lossless *l = arg;
	struct epoll_event ev[2];

	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	while (!atomic_load(&l->stop)) {
		epoll_wait(l->epfd, ev, 2, l->frozen || *l->prod_pos - *l->cons_pos >= l->low ? 1 : 100);
		check(l);
	}
	if (l->frozen)
		set_frozen(l, false);
	return NULL;
}

int lossless__watch(struct lossless *l, int rb_fd, uint64_t rb_bytes)
{
	struct epoll_event rb = { .events = EPOLLIN | EPOLLET }, stop = { .events = EPOLLIN };
	int err;

	l->page = (size_t)sysconf(_SC_PAGESIZE);
	l->cons_page = mmap(NULL, l->page, PROT_READ, MAP_SHARED, rb_fd, 0);
	l->prod_page = mmap(NULL, l->page, PROT_READ, MAP_SHARED, rb_fd, (off_t)l->page);
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	l->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (l->cons_page == MAP_FAILED || l->prod_page == MAP_FAILED || l->epfd < 0 ||
	    l->stop_fd < 0 || epoll_ctl(l->epfd, EPOLL_CTL_ADD, rb_fd, &rb) ||
	    epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->stop_fd, &stop)) {
		err = -errno;
		log__error("--lossless: cannot watch the ring buffer: %s", strerror(-err));
		return err;
	}
	l->cons_pos = l->cons_page;
	l->prod_pos = l->prod_page;
	l->high = rb_bytes >> HIGH_SHIFT;
	l->low = rb_bytes >> LOW_SHIFT;
	err = -pthread_create(&l->watcher, NULL, watch_main, l);
	if (err) {
		log__error("--lossless: cannot start its thread: %s", strerror(-err));
		return err;
	}
	l->started = true;
	return 0;
}

void lossless__set_cpus(struct lossless *l, const cpu_set_t *set)
{
	if (l && l->started)
		pthread_setaffinity_np(l->watcher, sizeof(*set), set);
}

void lossless__release(struct lossless *l)
{
	if (!l || atomic_exchange(&l->released, true))
		return;
	/* The watcher thaws too at its next check, should it have frozen meanwhile. */
	if (pwrite(l->freeze_fd, "0", 1, 0) != 1)
		log__warn("--lossless: cannot resume the traced processes: %s", strerror(errno));
}

int lossless__freeze_fd(const struct lossless *l)
{
	return l ? l->freeze_fd : -1;
}

static void stop_watching(struct lossless *l)
{
	if (!l->started)
		return;
	atomic_store(&l->stop, true);
	eventfd_write(l->stop_fd, 1);
	pthread_join(l->watcher, NULL);
	l->started = false;
}

void lossless__stats(struct lossless *l, uint64_t *pauses, uint64_t *paused_ns)
{
	if (l)
		stop_watching(l);
	*pauses = l ? l->pauses : 0;
	*paused_ns = l ? l->paused_ns : 0;
}

void lossless__close(struct lossless *l)
{
	if (!l)
		return;
	stop_watching(l);
	lossless__release(l);
	if (l->cons_page && l->cons_page != MAP_FAILED)
		munmap(l->cons_page, l->page);
	if (l->prod_page && l->prod_page != MAP_FAILED)
		munmap(l->prod_page, l->page);
	if (l->epfd >= 0)
		close(l->epfd);
	if (l->stop_fd >= 0)
		close(l->stop_fd);
	close(l->freeze_fd);
	close(l->procs_fd);
	/* A process still in it (a daemon the tree left behind) keeps it: say so. */
	if (rmdir(l->dir) && errno != ENOENT)
		log__debug("--lossless: cgroup %s left: %s", l->dir, strerror(errno));
	free(l);
}
