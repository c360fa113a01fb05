#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/records.h"
#include "symbolize/addrspace.h"
#include "parquet/colbuf.h"
#include "finalize/rows.h"
#include "finalize/runs.h"
#include "spool/spool.h"
#include "trace/schema.h"
#include "finalize/stacklists.h"
#include "finalize/stackset.h"
#include "parquet/strtab.h"

struct rows {
	const struct addrspace *as;
	struct stackset *ustacks, *kstacks;
	struct runs *runs;
	struct spool_blocks *blocks;	/* records read back by offset while writing */
	uint64_t nrec;
	struct strtab comms, files;
	struct pq_dict comm_dict, file_dict;
	uint64_t bad;
	/* The last name and stack pair looked up, and what they gave. */
	char last_comm[PROBEX_COMM_LEN];
	uint32_t last_comm_id;
	int32_t last_u, last_k;
	int64_t last_list;
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

int rows__new(struct rows **rp, const struct rows_opts *o)
{
	struct rows *r = calloc(1, sizeof(*r));
	int err;

	if (!r)
		return -ENOMEM;
	r->as = o->as;
	r->last_u = r->last_k = -1;
	r->last_list = -1;	/* what stacklists__list(-1, -1) gives */
	r->ustacks = o->ustacks;
	r->kstacks = o->kstacks;
	err = runs__new(&r->runs, o->spill_path, o->run_rows);
	if (!err)
		err = spool_blocks__open(&r->blocks, o->spool_path);
	if (err) {
		rows__free(r);
		return err;
	}
	*rp = r;
	return 0;
}

void rows__free(struct rows *r)
{
	if (!r)
		return;
	runs__free(r->runs);
	spool_blocks__close(r->blocks);
	strtab__free(&r->comms);
	strtab__free(&r->files);
	free(r);
}

static int add_ref(struct rows *r, uint64_t ts, uint64_t item, bool exit_half, int32_t u, int32_t k)
{
	struct rowref ref = {
		.ts = ts, .item = item | (exit_half ? ROWREF_EXIT_HALF : 0), .ustack = u, .kstack = k,
	};

	return runs__add(r->runs, &ref);
}

int rows__add_record(struct rows *r, const void *data, uint32_t len, uint64_t item)
{
	const struct rec_hdr *h = data;
	const uint64_t *frames;
	uint32_t fixed;
	int64_t u = -1, k = -1;
	int err;

	if (len < sizeof(*h) || h->kind == 0 || h->kind >= REC__COUNT || len < fixed_size[h->kind] ||
	    ((h->kind == REC_SYSCALL || h->kind == REC_SYSCALL_UNFINISHED) && h->sub >= SYS__COUNT) ||
	    fixed_size[h->kind] + ((uint32_t)h->ustack_n + h->kstack_n) * 8 > len) {
		r->bad++;
		return 0;
	}
	fixed = fixed_size[h->kind];
	frames = (const uint64_t *)((const char *)data + fixed);
	if (h->ustack_n) {
		u = stackset__intern(r->ustacks, addrspace__space_at(r->as, h->tgid, h->ts), frames,
				     h->ustack_n, h->flags & REC_F_USTACK_TRUNC, h->ts);
		if (u < 0)
			return (int)u;
	}
	if (h->kstack_n) {
		k = stackset__intern(r->kstacks, 0, frames + h->ustack_n, h->kstack_n,
				     h->flags & REC_F_KSTACK_TRUNC, h->ts);
		if (k < 0)
			return (int)k;
	}
	r->nrec++;
	if (h->kind == REC_SYSCALL || h->kind == REC_SYSCALL_UNFINISHED) {
		const struct rec_syscall *s = data;

		err = add_ref(r, s->enter_ts, item, false, (int32_t)u, (int32_t)k);
		if (!err && h->kind == REC_SYSCALL)
			err = add_ref(r, h->ts, item, true, (int32_t)u, (int32_t)k);
		return err;
	}
	return add_ref(r, h->ts, item, false, (int32_t)u, (int32_t)k);
}

int rows__sort(struct rows *r)
{
	return runs__finish(r->runs);
}

static void syscall_enter_cols(struct colbuf *c, const struct rec_syscall *s)
{
	const uint64_t *a = (const uint64_t *)s->args;

	switch (s->h.sub) {
	case SYS_READ:
	case SYS_WRITE:
		/* fd is an int: -1 stays -1 (the reference showed 4294967295). */
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
	default:
		/* io_uring_setup: entries, params; _enter: fd, to_submit; _register: fd, opcode —
		 * in the reference's fd/count columns. */
		colbuf__set(c, TC_FD, s->h.sub == SYS_IO_URING_SETUP ? (uint32_t)a[0]
								   : (uint64_t)(int64_t)(int32_t)a[0]);
		colbuf__set(c, TC_COUNT, s->h.sub == SYS_IO_URING_SETUP ? a[1] : (uint32_t)a[1]);
		break;
	}
}

static int emit(struct rows *r, struct colbuf *c, struct stacklists *sl, const struct rowref *ref)
{
	bool exit_half = ref->item & ROWREF_EXIT_HALF;
	int32_t u = ref->ustack, k = ref->kstack;
	const struct rec_hdr *h;
	const void *data;
	uint32_t cpu, len;
	int64_t id, list;
	uint8_t ev;
	int err;

	/* Checked when it was indexed; a spool changed since then is an I/O error. */
	err = spool_blocks__item(r->blocks, ref->item & ~ROWREF_EXIT_HALF, REC_MAX_FIXED, &data, &len);
	if (err)
		return err;
	h = data;
	if (len < sizeof(*h) || h->kind == 0 || h->kind >= REC__COUNT || len < fixed_size[h->kind])
		return -EIO;
	cpu = h->cpu;

	switch (h->kind) {
	case REC_SYSCALL:
	case REC_SYSCALL_UNFINISHED: {
		const struct rec_syscall *s = (const void *)h;

		ev = sys_enter_ev[h->sub] + exit_half;
		if (exit_half) {
			colbuf__set(c, TC_RET, (uint64_t)s->ret);
			colbuf__set(c, TC_LATENCY, h->ts - s->enter_ts);
		} else {
			cpu = s->enter_cpu;
			syscall_enter_cols(c, s);
		}
		break;
	}
	case REC_SCHED_SWITCH: {
		const struct rec_sched_switch *s = (const void *)h;

		ev = EV_SCHED_SWITCH;
		colbuf__set(c, TC_PREV_PID, s->prev_pid);
		colbuf__set(c, TC_NEXT_PID, s->next_pid);
		colbuf__set(c, TC_PREV_STATE, (uint64_t)s->prev_state);
		colbuf__set(c, TC_PREV_TGID, s->prev_tgid);
		colbuf__set(c, TC_NEXT_TGID, s->next_tgid);
		break;
	}
	case REC_FORK: {
		const struct rec_fork *f = (const void *)h;

		ev = EV_PROCESS_FORK;
		colbuf__set(c, TC_PARENT_PID, h->tid);
		colbuf__set(c, TC_CHILD_PID, f->child_pid);
		colbuf__set(c, TC_CHILD_TGID, f->child_tgid);
		colbuf__set(c, TC_IS_THREAD, f->child_tgid == h->tgid);
		break;
	}
	case REC_EXIT: {
		const struct rec_exit *x = (const void *)h;
		int sig = x->code & 0x7f;

		ev = EV_PROCESS_EXIT;
		/* exit_code as a shell reports it: the status, or 128+N when killed by N. */
		colbuf__set(c, TC_EXIT_CODE, (uint32_t)(sig ? 128 + sig : (x->code >> 8) & 0xff));
		if (sig)
			colbuf__set(c, TC_EXIT_SIGNAL, (uint32_t)sig);
		colbuf__set(c, TC_IS_THREAD, !x->group_dead);
		break;
	}
	case REC_EXEC: {
		const struct rec_exec *x = (const void *)h;

		ev = EV_PROCESS_EXEC;
		id = strtab__intern(&r->files, x->filename, strnlen(x->filename, sizeof(x->filename)));
		if (id < 0)
			return (int)id;
		colbuf__set(c, TC_FILENAME, (uint64_t)id);
		break;
	}
	case REC_PAGE_FAULT: {
		const struct rec_page_fault *p = (const void *)h;

		ev = EV_PAGE_FAULT;
		colbuf__set(c, TC_ADDRESS, p->address);
		colbuf__set(c, TC_ERROR_CODE, p->error_code);
		break;
	}
	case REC_IO_URING_COMPLETE: {
		const struct rec_io_uring_complete *q = (const void *)h;

		ev = EV_IO_URING_COMPLETE;
		colbuf__set(c, TC_SUBMIT_TS, q->submit_ts);
		colbuf__set(c, TC_IOU_OPCODE, q->opcode);
		colbuf__set(c, TC_IOU_RES, (uint32_t)q->res);
		colbuf__set(c, TC_LATENCY, h->ts >= q->submit_ts ? h->ts - q->submit_ts : 0);
		colbuf__set(c, TC_IOU_USER_DATA, q->user_data);
		break;
	}
	default:
		ev = EV_CPU_SAMPLE;
		break;
	}
	colbuf__set(c, TC_EVENT_TYPE, ev);
	colbuf__set(c, TC_TS, ref->ts);
	colbuf__set(c, TC_PID, h->tid);
	colbuf__set(c, TC_TGID, h->tgid);
	colbuf__set(c, TC_CPU, cpu);
	if (h->comm[0]) {
		/* Runs of rows share a thread: most rows repeat the last name looked up. */
		if (memcmp(r->last_comm, h->comm, PROBEX_COMM_LEN)) {
			id = strtab__intern(&r->comms, h->comm, strnlen(h->comm, PROBEX_COMM_LEN));
			if (id < 0)
				return (int)id;
			memcpy(r->last_comm, h->comm, PROBEX_COMM_LEN);
			r->last_comm_id = (uint32_t)id;
		}
		colbuf__set(c, TC_PROCESS_NAME, r->last_comm_id);
	}
	if (u != r->last_u || k != r->last_k) {
		list = stacklists__list(sl, u, k);
		if (list < -1)
			return (int)list;
		r->last_u = u;
		r->last_k = k;
		r->last_list = list;
	}
	list = r->last_list;
	if (list >= 0) {
		colbuf__set(c, TC_STACK_TRACE, (uint64_t)list);
		colbuf__set(c, TC_STACK_KIND, u >= 0 && k >= 0 ? 2 : u >= 0 ? 0 : 1);
		colbuf__set(c, TC_WEIGHT, h->weight ? h->weight : 1);
		if (u >= 0)
			colbuf__set(c, TC_STACK_ID, (uint32_t)u);
		if (k >= 0)
			colbuf__set(c, TC_KSTACK_ID, (uint32_t)k);
	}
	return 0;
}

int rows__write(struct rows *r, struct pq_writer *w, struct stacklists *sl, uint32_t rg_rows)
{
	uint64_t nrows = runs__rows(r->runs);
	struct rowref ref;
	struct colbuf c;
	int err, got;

	/* Small traces get small buffers: fresh pages are expensive on some VMs. */
	err = colbuf__init(&c, trace_schema__pq_columns(), TC__COUNT,
			   nrows && nrows < rg_rows ? (uint32_t)nrows : rg_rows);
	if (err)
		return err;
	colbuf__set_dict(&c, TC_EVENT_TYPE, trace_schema__event_dict(), NULL);
	colbuf__set_dict(&c, TC_STACK_KIND, &stack_kind_dict, NULL);
	colbuf__set_dict(&c, TC_PROCESS_NAME, &r->comm_dict, NULL);
	colbuf__set_dict(&c, TC_FILENAME, &r->file_dict, NULL);
	colbuf__set_dict(&c, TC_STACK_TRACE, stacklists__dict(sl), stacklists__lists(sl));
	while (!err && (got = runs__next(r->runs, &ref)) != 0) {
		err = got < 0 ? got : emit(r, &c, sl, &ref);
		if (!err && colbuf__next(&c)) {
			/* Interning may have moved the tables: refresh what the writer sees. */
			r->comm_dict = (struct pq_dict){ r->comms.strs, r->comms.lens, r->comms.n };
			r->file_dict = (struct pq_dict){ r->files.strs, r->files.lens, r->files.n };
			stacklists__lists(sl);
			err = colbuf__flush(&c, w);
		}
	}
	if (!err) {
		r->comm_dict = (struct pq_dict){ r->comms.strs, r->comms.lens, r->comms.n };
		r->file_dict = (struct pq_dict){ r->files.strs, r->files.lens, r->files.n };
		stacklists__lists(sl);
		err = colbuf__flush(&c, w);
	}
	colbuf__free(&c);
	return err;
}

void rows__stats(const struct rows *r, struct rows_stats *out)
{
	out->rows = runs__rows(r->runs);
	out->records = r->nrec;
	out->bad_records = r->bad;
	out->spilled_runs = runs__spilled(r->runs);
}
