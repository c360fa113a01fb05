/* A syscall record's columns: its arguments, return, latency, file name and fd path. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "bpf/records.h"
#include "finalize/fdpaths.h"
#include "finalize/rgwriter.h"
#include "finalize/rows_priv.h"
#include "parquet/colbuf.h"
#include "trace/schema.h"
#include "trace/syscalls.h"

/* Other syscalls (SYS_OTHER): the arguments trace/syscalls.c says are decoded. */
static void other_enter_cols(struct colbuf *c, const struct rec_syscall *s)
{
	const uint64_t *a = (const uint64_t *)s->args;
	struct syscall_args d;
	uint8_t f;

	syscall__args(s->nr, &d, &f);
	if (d.fd >= 0)
		colbuf__set(c, TC_FD, (uint64_t)(int64_t)(int32_t)a[d.fd]);
	if (d.count >= 0)
		colbuf__set(c, TC_COUNT, a[d.count]);
	else if (s->bytes != SYS_BYTES_UNKNOWN)
		colbuf__set(c, TC_COUNT, s->bytes);
	if (d.offset >= 0)
		colbuf__set(c, TC_OFFSET, a[d.offset]);
	if (d.futex_op >= 0)
		colbuf__set(c, TC_FUTEX_OP, (uint32_t)a[d.futex_op]);
}

static void syscall_enter_cols(struct colbuf *c, const struct rec_syscall *s)
{
	const uint64_t *a = (const uint64_t *)s->args;

	switch (s->h.sub) {
	case SYS_READ:
	case SYS_WRITE:
		/* fd is an int: -1 stays -1, not 4294967295. */
		colbuf__set(c, TC_FD, (uint64_t)(int64_t)(int32_t)a[0]);
		colbuf__set(c, TC_COUNT, a[2]);
		break;
	case SYS_MMAP:
		colbuf__set(c, TC_ADDRESS, a[0]);
		colbuf__set(c, TC_COUNT, a[1]);
		colbuf__set(c, TC_MMAP_PROT, (uint32_t)a[2]);
		colbuf__set(c, TC_MMAP_FLAGS, (uint32_t)a[3]);
		colbuf__set(c, TC_MMAP_FD, (uint32_t)a[4]);
		break;
	case SYS_MUNMAP:
		colbuf__set(c, TC_ADDRESS, a[0]);
		colbuf__set(c, TC_COUNT, a[1]);
		break;
	case SYS_BRK:
		colbuf__set(c, TC_ADDRESS, a[0]);
		break;
	case SYS_FSYNC:
	case SYS_FDATASYNC:
		colbuf__set(c, TC_FD, (uint64_t)(int64_t)(int32_t)a[0]);
		break;
	case SYS_OTHER:
		other_enter_cols(c, s);
		break;
	default:
		/* io_uring_setup: entries, params; _enter: fd, to_submit; _register: fd, opcode —
		 * in the fd/count columns. */
		colbuf__set(c, TC_FD, s->h.sub == SYS_IO_URING_SETUP ? (uint32_t)a[0]
								   : (uint64_t)(int64_t)(int32_t)a[0]);
		colbuf__set(c, TC_COUNT, s->h.sub == SYS_IO_URING_SETUP ? a[1] : (uint32_t)a[1]);
		break;
	}
}

/* fd_path on both halves (as of each), then what the exit did to the process's fds. */
static int fd_cols(struct rows *r, struct colbuf *c, const struct rec_syscall *s, bool exit_half,
		   struct rg_writer *g)
{
	int64_t fd = fdpaths__fd_arg(&r->fdp, s->nr, (const uint64_t *)s->args), id, path = -1;
	const char *label;
	int err;

	if (!r->fd_track)
		return 0;
	if (fd >= 0 && (id = fdpaths__get(&r->fdp, s->h.tgid, fd)) >= 0)
		colbuf__set(c, TC_FD_PATH, (uint64_t)id);
	if (!exit_half || s->h.kind == REC_SYSCALL_UNFINISHED || s->ret < 0)
		return 0;
	if (s->h.kind == REC_SYSCALL_PATH) {
		const struct rec_syscall_path *p = (const void *)s;

		if ((path = rows__file_id(r, p->path, sizeof(p->path), g)) < 0)
			return (int)path;
	}
	if ((err = fdpaths__exit(&r->fdp, s->h.tgid, s->nr, (const uint64_t *)s->args, s->ret, path, &label)))
		return err;
	if (!label)
		return 0;
	if ((id = rows__file_id(r, label, strlen(label), g)) < 0)
		return (int)id;
	return fdpaths__set(&r->fdp, s->h.tgid, s->ret, (uint32_t)id, false);
}

int syscols__cols(struct rows *r, struct colbuf *c, const struct rec_syscall *s, bool exit_half,
		  struct rg_writer *g, int *ev, uint32_t *cpu)
{
	int64_t id;
	int err;

	*ev = event_type__syscall(s->nr, exit_half);
	if (s->h.sub == SYS_OTHER)
		colbuf__set(c, TC_SYSCALL_NR, s->nr);
	if ((err = fd_cols(r, c, s, exit_half, g)))
		return err;
	if (exit_half) {
		colbuf__set(c, TC_RET, (uint64_t)s->ret);
		colbuf__set(c, TC_LATENCY, s->h.ts - s->enter_ts);
		return 0;
	}
	*cpu = s->enter_cpu;
	syscall_enter_cols(c, s);
	if (s->h.kind == REC_SYSCALL_PATH) {
		const struct rec_syscall_path *p = (const void *)s;

		id = rows__file_id(r, p->path, sizeof(p->path), g);
		if (id < 0)
			return (int)id;
		colbuf__set(c, TC_FILENAME, (uint64_t)id);
	}
	return 0;
}
