#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record/perfmaps.h"
#include "spool/spool.h"

/* Per map and poll: a runaway writer cannot stall us, and an item stays under half a
 * --ring segment (1 MiB at the least). */
#define COPY_MAX (256u << 10)

struct seen {
	uint32_t tgid;
	uint64_t ino, off;	/* bytes of that file already copied */
};

struct perfmaps {
	struct seen *s;
	size_t n, cap;
	char *buf;
	uid_t uid;
	struct timespec since;	/* CLOCK_REALTIME, as file times are */
};

int perfmaps__new(struct perfmaps **pmp, uid_t uid)
{
	struct perfmaps *pm = calloc(1, sizeof(*pm));

	if (!pm)
		return -ENOMEM;
	pm->uid = uid;
	clock_gettime(CLOCK_REALTIME, &pm->since);
	pm->buf = malloc(sizeof(struct spool_perfmap) + COPY_MAX);
	if (!pm->buf) {
		free(pm);
		return -ENOMEM;
	}
	*pmp = pm;
	return 0;
}

void perfmaps__free(struct perfmaps *pm)
{
	if (!pm)
		return;
	free(pm->s);
	free(pm->buf);
	free(pm);
}

static struct seen *seen_of(struct perfmaps *pm, uint32_t tgid)
{
	for (size_t i = 0; i < pm->n; i++)
		if (pm->s[i].tgid == tgid)
			return &pm->s[i];
	if (pm->n == pm->cap) {
		size_t cap = pm->cap ? pm->cap * 2 : 16;
		struct seen *s = realloc(pm->s, cap * sizeof(*s));

		if (!s)
			return NULL;
		pm->s = s;
		pm->cap = cap;
	}
	pm->s[pm->n] = (struct seen){ .tgid = tgid };
	return &pm->s[pm->n++];
}

static bool older(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* We read as root a file any user can create: only a regular file owned by the
 * process's user counts (as perf requires), not a symlink, and not a hard link (a user
 * could link a file of root's there where protected_hardlinks is off).  A process that
 * has exited has no user left to ask: the command's, and a file written since we began
 * (not one left by an earlier process of that pid). */
static int open_map(const struct perfmaps *pm, uint32_t tgid, struct stat *st)
{
	char path[64];
	struct stat ps;
	uid_t owner;
	int fd;

	snprintf(path, sizeof(path), "/tmp/perf-%u.map", tgid);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || st->st_nlink != 1)
		goto bad;
	snprintf(path, sizeof(path), "/proc/%u", tgid);
	if (!stat(path, &ps))
		owner = ps.st_uid;
	else if (errno == ENOENT && !older(&st->st_mtim, &pm->since))
		owner = pm->uid;
	else
		goto bad;
	if (st->st_uid != owner)
		goto bad;
	return fd;
bad:
	close(fd);
	return -EPERM;
}

/* Bytes of tgid's map copied (one slice of at most COPY_MAX), or a negative errno. */
static int copy_new(struct perfmaps *pm, uint32_t tgid, struct spool_writer *w)
{
	struct spool_perfmap *h = (struct spool_perfmap *)pm->buf;
	char *data = pm->buf + sizeof(*h);
	struct timespec now;
	struct seen *s;
	struct stat st;
	ssize_t got;
	size_t keep = 0;
	int fd = open_map(pm, tgid, &st), err = 0;

	if (fd < 0)
		return 0;
	s = seen_of(pm, tgid);
	if (!s) {
		close(fd);
		return -ENOMEM;
	}
	if (s->ino != st.st_ino || (uint64_t)st.st_size < s->off) {
		s->ino = st.st_ino;	/* a new file (or rewritten): from its start */
		s->off = 0;
	}
	if ((uint64_t)st.st_size > s->off) {
		got = pread(fd, data, COPY_MAX, (off_t)s->off);
		/* Whole lines only: the writer may be mid-line. */
		for (keep = got > 0 ? (size_t)got : 0; keep && data[keep - 1] != '\n'; keep--)
			;
		if (keep) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			*h = (struct spool_perfmap){ .tgid = tgid, .off = s->off,
						     .ts = (uint64_t)now.tv_sec * 1000000000ull + now.tv_nsec };
			/* --ring: the maps outlive their segment (the JIT frames need them). */
			err = spool_writer__append_side(w, SPOOL_PERFMAP, h, (uint32_t)(sizeof(*h) + keep),
							SPOOL_PERFMAP);
			s->off += keep;
		}
	}
	close(fd);
	return err ? err : (int)keep;
}

int perfmaps__poll(struct perfmaps *pm, int traced_fd, struct spool_writer *w)
{
	uint32_t key, next;
	void *prev = NULL;
	int err = 0;

	while (!err && !bpf_map_get_next_key(traced_fd, prev, &next)) {
		key = next;
		prev = &key;
		err = copy_new(pm, key, w);
		if (err > 0)
			err = 0;
	}
	return err;
}

/* A map read once its process is gone is not polled again: all of it (to a bound). */
#define FINAL_MAX (64u << 20)

int perfmaps__poll_one(struct perfmaps *pm, uint32_t tgid, struct spool_writer *w)
{
	size_t total = 0;
	int n;

	do {
		n = copy_new(pm, tgid, w);
		total += n > 0 ? (size_t)n : 0;
	} while (n > 0 && total < FINAL_MAX);
	return n < 0 ? n : 0;
}
