#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "record/attach.h"
#include "record/unwload.h"
#include "spool/spool.h"

/* The process a thread id belongs to (itself for a process), or -1. */
static int tgid_of(int pid)
{
	char path[64], line[128];
	int tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

int attach__check(const int *pids, int npids)
{
	for (int i = 0; i < npids; i++) {
		int tgid = pids[i] > 0 ? tgid_of(pids[i]) : -1;

		if (tgid < 0) {
			log__error("--pid %d: no such process", pids[i]);
			return -ESRCH;
		}
		if (tgid != pids[i]) {
			log__error("--pid %d is a thread of process %d: attach to the process (--pid %d)",
				   pids[i], tgid, tgid);
			return -EINVAL;
		}
		if (pids[i] == getpid()) {
			log__error("--pid %d: that is probex itself", pids[i]);
			return -EINVAL;
		}
	}
	return 0;
}

/* PERF_RECORD_MMAP2 as the side-band delivers it (sample_id_all with TID | TIME):
 * header, pid, tid, addr, len, pgoff, maj, min, ino, ino_generation, prot, flags,
 * filename (NUL-padded to 8 bytes), then pid, tid, time. */
struct mmap2_head {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
};

static int write_mapping(struct spool_writer *w, struct unwload *unw, uint32_t tgid, uint64_t ts,
			 uint64_t start, uint64_t end, uint64_t pgoff, const char *perms,
			 uint64_t ino, const char *name)
{
	size_t nlen = (strlen(name) + 1 + 7) & ~(size_t)7;
	size_t size = sizeof(struct mmap2_head) + nlen + 16;
	char buf[sizeof(struct mmap2_head) + 4096 + 16] = { 0 };
	struct mmap2_head *m = (void *)buf;
	uint32_t *ids;

	if (size > sizeof(buf))
		return 0;
	m->h.type = PERF_RECORD_MMAP2;
	m->h.misc = PERF_RECORD_MISC_USER;
	m->h.size = (uint16_t)size;
	m->pid = m->tid = tgid;
	m->addr = start;
	m->len = end - start;
	m->pgoff = pgoff;
	m->ino = ino;
	m->prot = (perms[0] == 'r' ? 1 : 0) | (perms[1] == 'w' ? 2 : 0) | (perms[2] == 'x' ? 4 : 0);
	m->flags = perms[3] == 's' ? 1 : 2;	/* MAP_SHARED : MAP_PRIVATE */
	strcpy(buf + sizeof(*m), name);
	ids = (uint32_t *)(buf + size - 16);
	ids[0] = ids[1] = tgid;
	memcpy(buf + size - 8, &ts, 8);
	/* Code mapped before we came: the kernel's stack walk learns of it here. */
	unwload__sideband(unw, &m->h);
	return spool_writer__append(w, SPOOL_PERF, buf, (uint32_t)size);
}

int attach__write_maps(struct spool_writer *w, struct unwload *unw, uint32_t tgid, uint64_t ts)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	int err = 0, n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/maps", tgid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (!err && getline(&line, &cap, f) > 0) {
		uint64_t start, end, pgoff, ino;
		char perms[8];
		int off = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*x:%*x %" SCNu64 " %n",
			   &start, &end, perms, &pgoff, &ino, &off) < 5 || !off)
			continue;
		line[strcspn(line, "\n")] = 0;
		/* Only files: anonymous memory, [heap] and [stack] have nothing to symbolize
		 * (frames in an earlier [vdso] stay unnamed). */
		if (line[off] != '/')
			continue;
		err = write_mapping(w, unw, tgid, ts, start, end, pgoff, perms, ino, line + off);
		n++;
	}
	free(line);
	fclose(f);
	log__debug("attach: %d file mappings of %u", n, tgid);
	return err;
}
