#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "finalize/fdpaths.h"
#include "trace/syscalls.h"

#define FDP_CLOEXEC	0x80000000u
#define FDP_CLOSED	UINT32_MAX

enum { N_NONE = -1, N_OPEN, N_CREAT, N_OPENAT, N_OPENAT2, N_CLOSE, N_CLOSE_RANGE, N_DUP, N_DUP2, N_DUP3,
       N_FCNTL, N_MMAP, N__COUNT };

static const char *const names[N__COUNT] = {
	"open", "creat", "openat", "openat2", "close", "close_range", "dup", "dup2", "dup3",
	"fcntl", "mmap",
};

/* Descriptors that name no path, labelled as /proc/PID/fd shows them. */
static const struct {
	const char *syscall, *label;
} anon[] = {
	{ "socket", "socket" }, { "accept", "socket" }, { "accept4", "socket" },
	{ "epoll_create", "anon_inode:[eventpoll]" }, { "epoll_create1", "anon_inode:[eventpoll]" },
	{ "eventfd", "anon_inode:[eventfd]" }, { "eventfd2", "anon_inode:[eventfd]" },
	{ "timerfd_create", "anon_inode:[timerfd]" }, { "signalfd", "anon_inode:[signalfd]" },
	{ "signalfd4", "anon_inode:[signalfd]" }, { "memfd_create", "memfd" },
	{ "io_uring_setup", "anon_inode:[io_uring]" }, { "pidfd_open", "anon_inode:[pidfd]" },
	{ "inotify_init", "anon_inode:inotify" }, { "inotify_init1", "anon_inode:inotify" },
	{ "perf_event_open", "anon_inode:[perf_event]" }, { "userfaultfd", "anon_inode:[userfaultfd]" },
};

void fdpaths__init(struct fdpaths *f)
{
	*f = (struct fdpaths){ 0 };
	for (unsigned int nr = 0; nr < TRACE_SYSCALL_MAX; nr++) {
		const char *name = syscall__name(nr);
		struct syscall_args d;
		uint8_t facts;

		f->kind[nr] = N_NONE;
		syscall__args(nr, &d, &facts);
		f->fd_arg[nr] = d.fd;
		if (!name)
			continue;
		for (int i = 0; i < N__COUNT; i++)
			if (!strcmp(names[i], name))
				f->kind[nr] = (int8_t)i;
		for (size_t i = 0; i < sizeof(anon) / sizeof(anon[0]); i++)
			if (!strcmp(anon[i].syscall, name))
				f->anon[nr] = anon[i].label;
		if (!strcmp(name, "read") || !strcmp(name, "write") || !strcmp(name, "fsync") ||
		    !strcmp(name, "fdatasync"))
			f->fd_arg[nr] = 0;
		if (!strcmp(name, "mmap"))
			f->fd_arg[nr] = -2;
	}
}

void fdpaths__free(struct fdpaths *f)
{
	for (uint32_t i = 0; i < f->nlists; i++)
		free(f->lists[i].fd);
	free(f->lists);
	hmap__free(&f->by_tgid);
	hmap__free(&f->map);
}

/* tgid's list, added when new; NULL when out of memory. */
static struct fdlist *list_of(struct fdpaths *f, uint32_t tgid, bool add)
{
	uint32_t i;

	if (hmap__get(&f->by_tgid, tgid, &i))
		return &f->lists[i];
	if (!add)
		return NULL;
	if (f->nlists == f->cap_lists) {
		uint32_t cap = f->cap_lists ? 2 * f->cap_lists : 64;
		struct fdlist *l = realloc(f->lists, cap * sizeof(*l));

		if (!l)
			return NULL;
		f->lists = l;
		f->cap_lists = cap;
	}
	if (hmap__put(&f->by_tgid, tgid, f->nlists))
		return NULL;
	f->lists[f->nlists] = (struct fdlist){ 0 };
	return &f->lists[f->nlists++];
}

static uint64_t key(uint32_t tgid, int64_t fd)
{
	return (uint64_t)tgid << 32 | (uint32_t)fd;
}

static bool valid_fd(int64_t fd)
{
	return fd >= 0 && fd <= INT32_MAX;
}

int64_t fdpaths__get(const struct fdpaths *f, uint32_t tgid, int64_t fd)
{
	uint32_t v;

	if (!valid_fd(fd) || !hmap__get(&f->map, key(tgid, fd), &v) || v == FDP_CLOSED)
		return -1;
	return v & ~FDP_CLOEXEC;
}

int fdpaths__set(struct fdpaths *f, uint32_t tgid, int64_t fd, uint32_t id, bool cloexec)
{
	struct fdlist *l;
	uint32_t v;

	if (!valid_fd(fd))
		return 0;
	/* A key never leaves the map, so it joins its process's list once. */
	if (!hmap__get(&f->map, key(tgid, fd), &v)) {
		if (!(l = list_of(f, tgid, true)))
			return -ENOMEM;
		if (l->n == l->cap) {
			uint32_t cap = l->cap ? 2 * l->cap : 8, *n = realloc(l->fd, cap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			l->fd = n;
			l->cap = cap;
		}
		l->fd[l->n++] = (uint32_t)fd;
	}
	return hmap__put(&f->map, key(tgid, fd), id | (cloexec ? FDP_CLOEXEC : 0));
}

static int closed(struct fdpaths *f, uint32_t tgid, int64_t fd)
{
	uint32_t v;

	/* Only descriptors it knows need forgetting. */
	if (!valid_fd(fd) || !hmap__get(&f->map, key(tgid, fd), &v))
		return 0;
	return hmap__put(&f->map, key(tgid, fd), FDP_CLOSED);
}

static int copy(struct fdpaths *f, uint32_t tgid, int64_t from, int64_t to, bool cloexec)
{
	int64_t id = fdpaths__get(f, tgid, from);

	return id < 0 ? closed(f, tgid, to) : fdpaths__set(f, tgid, to, (uint32_t)id, cloexec);
}

/* Close tgid's known descriptors lo..hi (only the cloexec ones, if asked). */
static void close_where(struct fdpaths *f, uint32_t tgid, uint64_t lo, uint64_t hi, bool only_cloexec)
{
	struct fdlist *l = list_of(f, tgid, false);

	for (uint32_t i = 0; l && i < l->n; i++) {
		struct hmap_slot *s = hmap__slot(&f->map, key(tgid, l->fd[i]));

		if (!s->used || s->val == FDP_CLOSED || l->fd[i] < lo || l->fd[i] > hi ||
		    (only_cloexec && !(s->val & FDP_CLOEXEC)))
			continue;
		s->val = FDP_CLOSED;
	}
}

int fdpaths__exit(struct fdpaths *f, uint32_t tgid, unsigned int nr, const uint64_t *a,
		  int64_t ret, int64_t path_id, const char **label)
{
	int n = nr < TRACE_SYSCALL_MAX ? f->kind[nr] : N_NONE;

	*label = NULL;
	if (ret < 0 || nr >= TRACE_SYSCALL_MAX)
		return 0;
	switch (n) {
	case N_OPEN:
	case N_CREAT:
	case N_OPENAT:
	case N_OPENAT2: {
		uint64_t flags = n == N_OPEN ? a[1] : n == N_OPENAT ? a[2] : 0;

		if (path_id < 0)
			return closed(f, tgid, ret);
		return fdpaths__set(f, tgid, ret, (uint32_t)path_id, flags & O_CLOEXEC);
	}
	case N_CLOSE:
		return closed(f, tgid, (int64_t)(int32_t)a[0]);
	case N_CLOSE_RANGE:
		close_where(f, tgid, (uint32_t)a[0], (uint32_t)a[1], false);
		return 0;
	case N_DUP:
		return copy(f, tgid, (int64_t)(int32_t)a[0], ret, false);
	case N_DUP2:
	case N_DUP3:
		return copy(f, tgid, (int64_t)(int32_t)a[0], ret, n == N_DUP3 && (a[2] & O_CLOEXEC));
	case N_FCNTL:
		if (a[1] == F_DUPFD || a[1] == F_DUPFD_CLOEXEC)
			return copy(f, tgid, (int64_t)(int32_t)a[0], ret, a[1] == F_DUPFD_CLOEXEC);
		return 0;
	default:
		*label = f->anon[nr];
		return 0;
	}
}

int fdpaths__fork(struct fdpaths *f, uint32_t parent, uint32_t child)
{
	struct fdlist *l = list_of(f, parent, false);
	uint32_t n = l ? l->n : 0, pi = l ? (uint32_t)(l - f->lists) : 0;
	int err = 0;

	/* By index: adding the child's list may move the lists. */
	for (uint32_t i = 0; i < n && !err; i++) {
		uint32_t fd = f->lists[pi].fd[i], v;

		if (hmap__get(&f->map, key(parent, fd), &v) && v != FDP_CLOSED)
			err = fdpaths__set(f, child, fd, v & ~FDP_CLOEXEC, v & FDP_CLOEXEC);
	}
	return err;
}

void fdpaths__exec(struct fdpaths *f, uint32_t tgid)
{
	close_where(f, tgid, 0, UINT32_MAX, true);
}

void fdpaths__gone(struct fdpaths *f, uint32_t tgid)
{
	close_where(f, tgid, 0, UINT32_MAX, false);
}

int64_t fdpaths__fd_arg(const struct fdpaths *f, unsigned int nr, const uint64_t *a)
{
	int k = nr < TRACE_SYSCALL_MAX ? f->fd_arg[nr] : -1;

	if (k == -2)
		return (a[3] & MAP_ANONYMOUS) ? -1 : (int64_t)(int32_t)a[4];
	return k >= 0 ? (int64_t)(int32_t)a[k] : -1;
}
