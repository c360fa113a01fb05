#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/records.h"
#include "symbolize/addrspace.h"
#include "trace/rowbuf.h"
#include "trace/rows.h"
#include "trace/schema.h"
#include "trace/stackset.h"

enum rcol {
	R_EV, R_TS, R_PID, R_TGID, R_COMM, R_USTACK, R_KSTACK, R_CPU,
	R_PREV_PID, R_NEXT_PID, R_PREV_STATE, R_PARENT_PID, R_CHILD_PID, R_EXIT_CODE,
	R_ADDRESS, R_ERROR_CODE, R_FD, R_COUNT, R_RET, R_SUBMIT_TS, R_IOU_OPCODE, R_IOU_RES,
	R_LATENCY, R_CHILD_TGID, R_IS_THREAD, R_EXIT_SIGNAL, R_PREV_TGID, R_NEXT_TGID,
	R_FILENAME, R_WEIGHT, R_MMAP_PROT, R_MMAP_FLAGS, R_MMAP_FD, R_IOU_USER_DATA,
	R__COUNT,
};

static const struct col_def raw_cols[R__COUNT] = {
	[R_EV] = { "ev", COL_U8 },
	[R_TS] = { "ts_ns", COL_U64 },
	[R_PID] = { "pid", COL_U32 },
	[R_TGID] = { "tgid", COL_U32 },
	[R_COMM] = { "comm_id", COL_U32 },
	[R_USTACK] = { "ustack_id", COL_I32 },
	[R_KSTACK] = { "kstack_id", COL_I32 },
	[R_CPU] = { "cpu", COL_U32 },
	[R_PREV_PID] = { "prev_pid", COL_U32 },
	[R_NEXT_PID] = { "next_pid", COL_U32 },
	[R_PREV_STATE] = { "prev_state", COL_I64 },
	[R_PARENT_PID] = { "parent_pid", COL_U32 },
	[R_CHILD_PID] = { "child_pid", COL_U32 },
	[R_EXIT_CODE] = { "exit_code", COL_I32 },
	[R_ADDRESS] = { "address", COL_U64 },
	[R_ERROR_CODE] = { "error_code", COL_U64 },
	[R_FD] = { "fd", COL_I64 },
	[R_COUNT] = { "count", COL_U64 },
	[R_RET] = { "ret", COL_I64 },
	[R_SUBMIT_TS] = { "submit_ts_ns", COL_U64 },
	[R_IOU_OPCODE] = { "io_uring_opcode", COL_U8 },
	[R_IOU_RES] = { "io_uring_res", COL_I32 },
	[R_LATENCY] = { "latency_ns", COL_U64 },
	[R_CHILD_TGID] = { "child_tgid", COL_U32 },
	[R_IS_THREAD] = { "is_thread", COL_BOOL },
	[R_EXIT_SIGNAL] = { "exit_signal", COL_I32 },
	[R_PREV_TGID] = { "prev_tgid", COL_U32 },
	[R_NEXT_TGID] = { "next_tgid", COL_U32 },
	[R_FILENAME] = { "filename", COL_STR },
	[R_WEIGHT] = { "stack_weight", COL_U32 },
	[R_MMAP_PROT] = { "mmap_prot", COL_U32 },
	[R_MMAP_FLAGS] = { "mmap_flags", COL_U32 },
	[R_MMAP_FD] = { "mmap_fd", COL_I32 },
	[R_IOU_USER_DATA] = { "io_uring_user_data", COL_U64 },
};

/* Interned process names: 16-byte comm → dense id. */
struct comm_tab {
	char (*names)[PROBEX_COMM_LEN];
	uint32_t n, cap;
	uint32_t *slots;
	uint32_t nslots;
};

struct rows {
	struct rowbuf *rb;
	const struct addrspace *as;
	struct stackset *ustacks, *kstacks;
	struct comm_tab comms;
	uint64_t bad;
};

static const uint8_t sys_enter_ev[SYS__COUNT] = {
	[SYS_READ] = EV_READ_ENTER,
	[SYS_WRITE] = EV_WRITE_ENTER,
	[SYS_MMAP] = EV_MMAP_ENTER,
	[SYS_MUNMAP] = EV_MUNMAP_ENTER,
	[SYS_BRK] = EV_BRK_ENTER,
	[SYS_FSYNC] = EV_FSYNC_ENTER,
	[SYS_FDATASYNC] = EV_FDATASYNC_ENTER,
	[SYS_IO_URING_SETUP] = EV_IO_URING_SETUP_ENTER,
	[SYS_IO_URING_ENTER] = EV_IO_URING_ENTER_ENTER,
	[SYS_IO_URING_REGISTER] = EV_IO_URING_REGISTER_ENTER,
};

static int64_t comm_id(struct comm_tab *t, const char *comm)
{
	char key[PROBEX_COMM_LEN] = { 0 };
	uint64_t h = 1469598103934665603ull;
	uint32_t i;

	memcpy(key, comm, strnlen(comm, PROBEX_COMM_LEN - 1));
	for (int k = 0; k < PROBEX_COMM_LEN; k++)
		h = (h ^ (uint8_t)key[k]) * 1099511628211ull;
	if (!t->slots) {
		t->nslots = 256;
		t->slots = calloc(t->nslots, sizeof(*t->slots));
		if (!t->slots)
			return -ENOMEM;
	}
	for (i = h & (t->nslots - 1); t->slots[i]; i = (i + 1) & (t->nslots - 1))
		if (!memcmp(t->names[t->slots[i] - 1], key, PROBEX_COMM_LEN))
			return t->slots[i] - 1;
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 64;
		void *p = realloc(t->names, cap * sizeof(*t->names));

		if (!p)
			return -ENOMEM;
		t->names = p;
		t->cap = cap;
	}
	memcpy(t->names[t->n], key, PROBEX_COMM_LEN);
	t->slots[i] = ++t->n;
	if (t->n * 2 > t->nslots) {
		uint32_t n = t->nslots * 2, *s = calloc(n, sizeof(*s));

		if (!s)
			return -ENOMEM;
		for (uint32_t id = 0; id < t->n; id++) {
			uint64_t hh = 1469598103934665603ull;

			for (int k = 0; k < PROBEX_COMM_LEN; k++)
				hh = (hh ^ (uint8_t)t->names[id][k]) * 1099511628211ull;
			for (i = hh & (n - 1); s[i]; i = (i + 1) & (n - 1))
				;
			s[i] = id + 1;
		}
		free(t->slots);
		t->slots = s;
		t->nslots = n;
	}
	return t->n - 1;
}

int rows__open(struct rows **rp, duckdb_connection con, const struct addrspace *as,
	       struct stackset *ustacks, struct stackset *kstacks)
{
	struct rows *r = calloc(1, sizeof(*r));
	int err;

	if (!r)
		return -ENOMEM;
	r->as = as;
	r->ustacks = ustacks;
	r->kstacks = kstacks;
	err = rowbuf__open(&r->rb, con, "raw", raw_cols, R__COUNT);
	if (err) {
		free(r);
		return err;
	}
	*rp = r;
	return 0;
}

/* Stack ids for a record (or -1), interned once per unique stack. */
struct stack_ids {
	int64_t user, kernel;
};

static int rec_stacks(struct rows *r, const struct rec_hdr *h, const void *data, uint32_t len,
		      uint32_t fixed, struct stack_ids *ids)
{
	const uint64_t *f = (const uint64_t *)((const char *)data + fixed);

	ids->user = ids->kernel = -1;
	if (fixed + ((uint32_t)h->ustack_n + h->kstack_n) * 8 > len)
		return -EBADMSG;
	if (h->ustack_n) {
		uint32_t space = addrspace__space_at(r->as, h->tgid, h->ts);

		ids->user = stackset__intern(r->ustacks, space, f, h->ustack_n,
					     h->flags & REC_F_USTACK_TRUNC, h->ts);
		if (ids->user < 0)
			return (int)ids->user;
	}
	if (h->kstack_n) {
		ids->kernel = stackset__intern(r->kstacks, 0, f + h->ustack_n, h->kstack_n,
					       h->flags & REC_F_KSTACK_TRUNC, h->ts);
		if (ids->kernel < 0)
			return (int)ids->kernel;
	}
	return 0;
}

/* Columns every row has; the stack columns only when the record carried stacks. */
static int row_begin(struct rows *r, uint8_t ev, uint64_t ts, uint32_t cpu, const struct rec_hdr *h,
		     const struct stack_ids *ids)
{
	struct rowbuf *rb = r->rb;
	int64_t c = comm_id(&r->comms, h->comm);

	if (c < 0)
		return (int)c;
	rowbuf__u64(rb, R_EV, ev);
	rowbuf__u64(rb, R_TS, ts);
	rowbuf__u64(rb, R_PID, h->tid);
	rowbuf__u64(rb, R_TGID, h->tgid);
	if (h->comm[0])
		rowbuf__u64(rb, R_COMM, (uint64_t)c);
	rowbuf__u64(rb, R_CPU, cpu);
	if (ids->user >= 0)
		rowbuf__i64(rb, R_USTACK, ids->user);
	if (ids->kernel >= 0)
		rowbuf__i64(rb, R_KSTACK, ids->kernel);
	if (ids->user >= 0 || ids->kernel >= 0)
		rowbuf__u64(rb, R_WEIGHT, h->weight ? h->weight : 1);
	return 0;
}

static void syscall_enter_cols(struct rowbuf *rb, const struct rec_syscall *s)
{
	const uint64_t *a = (const uint64_t *)s->args;

	switch (s->h.sub) {
	case SYS_READ:
	case SYS_WRITE:
		/* fd is an int: -1 stays -1 (the reference showed 4294967295). */
		rowbuf__i64(rb, R_FD, (int32_t)a[0]);
		rowbuf__u64(rb, R_COUNT, a[2]);
		break;
	case SYS_MMAP:
		rowbuf__u64(rb, R_ADDRESS, a[0]);
		rowbuf__u64(rb, R_COUNT, a[1]);
		rowbuf__u64(rb, R_MMAP_PROT, (uint32_t)a[2]);
		rowbuf__u64(rb, R_MMAP_FLAGS, (uint32_t)a[3]);
		rowbuf__i64(rb, R_MMAP_FD, (int32_t)a[4]);
		break;
	case SYS_MUNMAP:
		rowbuf__u64(rb, R_ADDRESS, a[0]);
		rowbuf__u64(rb, R_COUNT, a[1]);
		break;
	case SYS_BRK:
		rowbuf__u64(rb, R_ADDRESS, a[0]);
		break;
	case SYS_FSYNC:
	case SYS_FDATASYNC:
		rowbuf__i64(rb, R_FD, (int32_t)a[0]);
		break;
	default:
		/* io_uring_setup: entries, params; _enter: fd, to_submit; _register: fd, opcode —
		 * in the reference's fd/count columns. */
		rowbuf__i64(rb, R_FD, s->h.sub == SYS_IO_URING_SETUP ? (int64_t)(uint32_t)a[0]
								       : (int64_t)(int32_t)a[0]);
		rowbuf__u64(rb, R_COUNT, s->h.sub == SYS_IO_URING_SETUP ? a[1] : (uint32_t)a[1]);
		break;
	}
}

static int add_syscall(struct rows *r, const struct rec_syscall *s, const struct stack_ids *ids,
		       bool finished)
{
	uint8_t enter = sys_enter_ev[s->h.sub];
	int err;

	err = row_begin(r, enter, s->enter_ts, s->enter_cpu, &s->h, ids);
	if (err)
		return err;
	syscall_enter_cols(r->rb, s);
	err = rowbuf__next(r->rb);
	if (err || !finished)
		return err;
	err = row_begin(r, enter + 1, s->h.ts, s->h.cpu, &s->h, ids);
	if (err)
		return err;
	rowbuf__i64(r->rb, R_RET, s->ret);
	rowbuf__u64(r->rb, R_LATENCY, s->h.ts - s->enter_ts);
	return rowbuf__next(r->rb);
}

static const uint32_t fixed_size[REC__COUNT] = {
	[REC_SYSCALL] = sizeof(struct rec_syscall),
	[REC_SCHED_SWITCH] = sizeof(struct rec_sched_switch),
	[REC_FORK] = sizeof(struct rec_fork),
	[REC_EXIT] = sizeof(struct rec_exit),
	[REC_EXEC] = sizeof(struct rec_exec),
	[REC_PAGE_FAULT] = sizeof(struct rec_page_fault),
	[REC_CPU_SAMPLE] = sizeof(struct rec_cpu_sample),
	[REC_IO_URING_COMPLETE] = sizeof(struct rec_io_uring_complete),
	[REC_SYSCALL_UNFINISHED] = sizeof(struct rec_syscall),
};

int rows__add_record(struct rows *r, const void *data, uint32_t len)
{
	const struct rec_hdr *h = data;
	struct rowbuf *rb = r->rb;
	struct stack_ids ids;
	int err;

	if (len < sizeof(*h) || h->kind == 0 || h->kind >= REC__COUNT || len < fixed_size[h->kind] ||
	    ((h->kind == REC_SYSCALL || h->kind == REC_SYSCALL_UNFINISHED) && h->sub >= SYS__COUNT) ||
	    rec_stacks(r, h, data, len, fixed_size[h->kind], &ids)) {
		r->bad++;
		return 0;
	}
	switch (h->kind) {
	case REC_SYSCALL:
	case REC_SYSCALL_UNFINISHED:
		return add_syscall(r, data, &ids, h->kind == REC_SYSCALL);
	case REC_SCHED_SWITCH: {
		const struct rec_sched_switch *s = data;

		err = row_begin(r, EV_SCHED_SWITCH, h->ts, h->cpu, h, &ids);
		if (err)
			return err;
		rowbuf__u64(rb, R_PREV_PID, s->prev_pid);
		rowbuf__u64(rb, R_NEXT_PID, s->next_pid);
		rowbuf__i64(rb, R_PREV_STATE, s->prev_state);
		rowbuf__u64(rb, R_PREV_TGID, s->prev_tgid);
		rowbuf__u64(rb, R_NEXT_TGID, s->next_tgid);
		break;
	}
	case REC_FORK: {
		const struct rec_fork *f = data;

		err = row_begin(r, EV_PROCESS_FORK, h->ts, h->cpu, h, &ids);
		if (err)
			return err;
		rowbuf__u64(rb, R_PARENT_PID, h->tid);
		rowbuf__u64(rb, R_CHILD_PID, f->child_pid);
		rowbuf__u64(rb, R_CHILD_TGID, f->child_tgid);
		rowbuf__bool(rb, R_IS_THREAD, f->child_tgid == h->tgid);
		break;
	}
	case REC_EXIT: {
		const struct rec_exit *x = data;
		int sig = x->code & 0x7f;

		err = row_begin(r, EV_PROCESS_EXIT, h->ts, h->cpu, h, &ids);
		if (err)
			return err;
		/* exit_code as a shell reports it: the status, or 128+N when killed by N. */
		if (sig) {
			rowbuf__i64(rb, R_EXIT_CODE, 128 + sig);
			rowbuf__i64(rb, R_EXIT_SIGNAL, sig);
		} else {
			rowbuf__i64(rb, R_EXIT_CODE, (x->code >> 8) & 0xff);
		}
		rowbuf__bool(rb, R_IS_THREAD, !x->group_dead);
		break;
	}
	case REC_EXEC: {
		const struct rec_exec *x = data;

		err = row_begin(r, EV_PROCESS_EXEC, h->ts, h->cpu, h, &ids);
		if (err)
			return err;
		rowbuf__str(rb, R_FILENAME, x->filename, strnlen(x->filename, sizeof(x->filename)));
		break;
	}
	case REC_PAGE_FAULT: {
		const struct rec_page_fault *p = data;

		err = row_begin(r, EV_PAGE_FAULT, h->ts, h->cpu, h, &ids);
		if (err)
			return err;
		rowbuf__u64(rb, R_ADDRESS, p->address);
		rowbuf__u64(rb, R_ERROR_CODE, p->error_code);
		break;
	}
	case REC_CPU_SAMPLE:
		err = row_begin(r, EV_CPU_SAMPLE, h->ts, h->cpu, h, &ids);
		if (err)
			return err;
		break;
	case REC_IO_URING_COMPLETE: {
		const struct rec_io_uring_complete *c = data;

		err = row_begin(r, EV_IO_URING_COMPLETE, h->ts, h->cpu, h, &ids);
		if (err)
			return err;
		rowbuf__u64(rb, R_SUBMIT_TS, c->submit_ts);
		rowbuf__u64(rb, R_IOU_OPCODE, c->opcode);
		rowbuf__i64(rb, R_IOU_RES, c->res);
		rowbuf__u64(rb, R_LATENCY, h->ts >= c->submit_ts ? h->ts - c->submit_ts : 0);
		rowbuf__u64(rb, R_IOU_USER_DATA, c->user_data);
		break;
	}
	}
	return rowbuf__next(rb);
}

uint64_t rows__count(const struct rows *r)
{
	return rowbuf__rows(r->rb);
}

uint64_t rows__bad_records(const struct rows *r)
{
	return r->bad;
}

int rows__close(struct rows *r, duckdb_connection con)
{
	static const struct col_def comm_cols[] = { { "id", COL_U32 }, { "name", COL_STR } };
	struct rowbuf *cb = NULL;
	int err;

	err = rowbuf__close(r->rb);
	if (!err)
		err = rowbuf__open(&cb, con, "comms", comm_cols, 2);
	for (uint32_t i = 0; !err && i < r->comms.n; i++) {
		rowbuf__u64(cb, 0, i);
		rowbuf__str(cb, 1, r->comms.names[i], strnlen(r->comms.names[i], PROBEX_COMM_LEN));
		err = rowbuf__next(cb);
	}
	if (cb) {
		int e = rowbuf__close(cb);

		if (!err)
			err = e;
	}
	free(r->comms.names);
	free(r->comms.slots);
	free(r);
	return err;
}
