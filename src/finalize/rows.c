#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/records.h"
#include "symbolize/addrspace.h"
#include "parquet/colbuf.h"
#include "finalize/argvcol.h"
#include "finalize/fdpaths.h"
#include "finalize/fdseed.h"
#include "finalize/offjoin.h"
#include "finalize/probe_rows.h"
#include "finalize/pyframes.h"
#include "finalize/rgwriter.h"
#include "finalize/rows.h"
#include "finalize/rows_priv.h"
#include "finalize/runs.h"
#include "spool/spool.h"
#include "trace/schema.h"
#include "trace/stacknum.h"
#include "trace/syscalls.h"
#include "finalize/stacklists.h"
#include "finalize/stackset.h"
#include "finalize/unwind.h"
#include "parquet/strtab.h"

static bool is_syscall(uint8_t kind)
{
	return kind == REC_SYSCALL || kind == REC_SYSCALL_UNFINISHED || kind == REC_SYSCALL_PATH;
}

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
	fdpaths__init(&r->fdp);
	r->offjoin = offjoin__new();
	err = r->offjoin ? probe_rows__new(&r->probes, NULL) : -ENOMEM;
	if (!err)
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
	offjoin__free(r->offjoin);
	probe_rows__free(r->probes);
	intern__free(&r->comms);
	intern__free(&r->files);
	argvcol__free(&r->argv);
	fdpaths__free(&r->fdp);
	bitset__free(&r->lists_seen);
	free(r);
}

static int add_ref(struct rows *r, uint64_t ts, uint64_t item, bool exit_half, int32_t u, int32_t k)
{
	struct rowref ref = {
		.ts = ts, .item = item | (exit_half ? ROWREF_EXIT_HALF : 0), .ustack = u, .kstack = k,
		.wustack = -1, .wkstack = -1,
	};

	return runs__add(r->runs, &ref);
}

void rows__set_pyframes(struct rows *r, struct pyframes *py)
{
	r->py = py;
}

void rows__set_unwinder(struct rows *r, struct unwinder *unw)
{
	r->unw = unw;
}

int rows__set_probes(struct rows *r, const char *meta)
{
	struct probe_rows *pr;
	int err = fdseed__read(meta, &r->fdp, &r->files);

	/* A damaged descriptor list only loses the paths it held. */
	if (err == -ENOMEM)
		return err;
	r->fd_track = err != 0;
	err = probe_rows__new(&pr, meta);

	if (err)
		return err;
	probe_rows__free(r->probes);
	r->probes = pr;
	return 0;
}

/* Room for a user stack with its Python frames merged in. */
#define USTACK_ROOM (UNW_MAX_FRAMES + PY_MAX_FRAMES)
_Static_assert(UNW_MAX_FRAMES >= PROBEX_MAX_FRAMES, "a walked stack fits the room of a copied one");

/* A copied user stack, unwound now (its Python frames merged in): its stack id, or -1. */
static int64_t copied_ustack(struct rows *r, const struct rec_hdr *h, uint32_t len, uint32_t fixed)
{
	uint64_t frames[USTACK_ROOM];
	uint16_t flags = 0;
	uint32_t space, n;

	if (!r->unw)
		return -1;
	space = addrspace__space_at(r->as, h->tgid, h->ts);
	n = unwinder__record(r->unw, space, h, len, fixed, frames, UNW_MAX_FRAMES, &flags);
	if (!n)
		return -1;
	if (h->flags & REC_F_PYSTACK)
		pyframes__merge(r->py, h, len, frames, &n, USTACK_ROOM);
	return stackset__intern(r->ustacks, space, frames, n, flags & REC_F_USTACK_TRUNC, h->ts);
}

/* A user stack walked in the kernel, with its Python frames merged in. */
static int64_t walked_ustack(struct rows *r, const struct rec_hdr *h, uint32_t len,
			     const uint64_t *walked)
{
	uint64_t frames[USTACK_ROOM];
	uint32_t space = addrspace__space_at(r->as, h->tgid, h->ts), n = h->ustack_n;
	uint16_t trunc = h->flags & REC_F_USTACK_TRUNC;

	if (!(h->flags & REC_F_PYSTACK))
		return stackset__intern(r->ustacks, space, walked, n, trunc, h->ts);
	memcpy(frames, walked, n * 8);
	pyframes__merge(r->py, h, len, frames, &n, USTACK_ROOM);
	return stackset__intern(r->ustacks, space, frames, n, trunc, h->ts);
}

/* An off_cpu row's stack is the one its blocking sched_switch took (same thread, same
 * time), which the kernel sent first; for a long interval whose switch was sampled out,
 * the kernel stack comes from a rec_off_kstack and the user stack with the off_cpu record
 * itself.  Its waker's stack comes the same way, from the waker record sent at the
 * wakeup.  Joined now, in spool order, keeping only stack ids (finalize/offjoin.h). */
_Static_assert(PROBEX_SYSCALL_MAX == TRACE_SYSCALL_MAX, "every recorded syscall has an event type");

/* The trace's prev_state of a kernel one: the task state bits as they are, preemption
 * as the trace's value. */
static int64_t trace_state(int64_t kernel_state)
{
	_Static_assert(SWITCH_STATE_PREEMPTED == TRACE_STATE_PREEMPTED, "a new trace value needs a format change");
	return kernel_state == SWITCH_STATE_PREEMPTED ? TRACE_STATE_PREEMPTED : kernel_state;
}

static int join_block_stack(struct rows *r, const struct rec_hdr *h, struct rowref *ref)
{
	struct offjoin_stacks own = { ref->ustack, ref->kstack }, waker = { -1, -1 };

	if (h->kind == REC_SCHED_SWITCH) {
		const struct rec_sched_switch *s = (const void *)h;

		if (h->tid != s->prev_pid || s->prev_state == 0 || s->prev_state == SWITCH_STATE_PREEMPTED ||
		    (own.u < 0 && own.k < 0))
			return 0;
		return offjoin__block(r->offjoin, h->tid, h->ts, own);
	}
	if (h->kind == REC_WAKER) {
		const struct rec_waker *w = (const void *)h;

		return offjoin__wake(r->offjoin, w->wakee_tid, w->wakee_off_ts, own);
	}
	if (h->kind == REC_OFF_KSTACK)
		return offjoin__block(r->offjoin, h->tid, ((const struct rec_off_kstack *)h)->off_ts, own);
	offjoin__offcpu(r->offjoin, h->tid, h->ts, &own, &waker);
	ref->ustack = own.u;
	ref->kstack = own.k;
	ref->wustack = waker.u;
	ref->wkstack = waker.k;
	return 0;
}

int rows__add_record(struct rows *r, const void *data, uint32_t len, uint64_t item)
{
	const struct rec_hdr *h = data;
	const uint64_t *frames;
	struct rowref ref;
	uint32_t fixed;
	int64_t u = -1, k = -1;
	int err;

	if (len < sizeof(*h) || h->kind == 0 || h->kind >= REC__COUNT || len < rec_fixed_size(h->kind) ||
	    (is_syscall(h->kind) && (h->sub >= SYS__COUNT ||
				     ((const struct rec_syscall *)data)->nr >= PROBEX_SYSCALL_MAX)) ||
	    rec_fixed_size(h->kind) + ((uint32_t)h->ustack_n + h->kstack_n) * 8 > len) {
		r->bad++;
		return 0;
	}
	fixed = rec_fixed_size(h->kind);
	frames = (const uint64_t *)((const char *)data + fixed);
	if (h->ustack_n) {
		u = walked_ustack(r, h, len, frames);
		if (u < 0)
			return (int)u;
	} else if (h->flags & REC_F_USTACK_COPY) {
		u = copied_ustack(r, h, len, fixed);
		if (u < -1)
			return (int)u;
	}
	if (h->kstack_n) {
		k = stackset__intern(r->kstacks, 0, frames + h->ustack_n, h->kstack_n,
				     h->flags & REC_F_KSTACK_TRUNC, h->ts);
		if (k < 0)
			return (int)k;
	}
	r->nrec++;
	ref = (struct rowref){ .ts = h->ts, .item = item, .ustack = (int32_t)u, .kstack = (int32_t)k,
			       .wustack = -1, .wkstack = -1 };
	if ((h->kind == REC_SCHED_SWITCH || h->kind == REC_OFF_CPU || h->kind == REC_WAKER ||
	     h->kind == REC_OFF_KSTACK) && (err = join_block_stack(r, h, &ref)))
		return err;
	if (h->kind == REC_WAKER || h->kind == REC_OFF_KSTACK)
		return 0;	/* no row of its own */
	if (h->kind == REC_EXEC) {
		const struct rec_exec *x = data;

		/* The command line follows the record (no stacks do). */
		if (x->argv_len && fixed + x->argv_len <= len &&
		    (err = argvcol__add(&r->argv, item, (const char *)data + fixed, x->argv_len)))
			return err;
	}
	if (h->kind == REC_PROBE_CALL) {
		err = add_ref(r, ((const struct rec_probe_call *)data)->enter_ts, item, false, -1, -1);
		return err ?: add_ref(r, h->ts, item, true, -1, -1);
	}
	if (is_syscall(h->kind)) {
		const struct rec_syscall *s = data;

		err = add_ref(r, s->enter_ts, item, false, (int32_t)u, (int32_t)k);
		if (!err && h->kind != REC_SYSCALL_UNFINISHED)
			err = add_ref(r, h->ts, item, true, (int32_t)u, (int32_t)k);
		return err;
	}
	return runs__add(r->runs, &ref);
}

int rows__sort(struct rows *r)
{
	argvcol__finish(&r->argv);
	return runs__finish(r->runs);
}

int64_t rows__file_id(struct rows *r, const char *name, size_t max, struct rg_writer *g)
{
	int err;

	if (r->files.n == r->files.cap && (err = rg_writer__wait(g)))
		return err;
	return strtab__intern(&r->files, name, strnlen(name, max));
}

/* A comm column (process_name, waker_name): one dictionary of names for both. */
static int comm_col(struct rows *r, struct colbuf *c, int col, const char *comm,
		    struct rg_writer *g)
{
	int64_t id;
	int err;

	/* Runs of rows share a thread: most rows repeat the last name looked up. */
	if (memcmp(r->last_comm, comm, PROBEX_COMM_LEN)) {
		if (r->comms.n == r->comms.cap && (err = rg_writer__wait(g)))
			return err;
		id = strtab__intern(&r->comms, comm, strnlen(comm, PROBEX_COMM_LEN));
		if (id < 0)
			return (int)id;
		memcpy(r->last_comm, comm, PROBEX_COMM_LEN);
		r->last_comm_id = (uint32_t)id;
	}
	colbuf__set(c, col, r->last_comm_id);
	return 0;
}

/* waker_stack_trace: the same lists as stack_trace. */
static int waker_col(struct colbuf *c, struct stacklists *sl, const struct rowref *ref,
		     struct rg_writer *g)
{
	int64_t list;
	int err;

	if (ref->wustack < 0 && ref->wkstack < 0)
		return 0;
	if (stacklists__may_move(sl, ref->wustack, ref->wkstack) && (err = rg_writer__wait(g)))
		return err;
	list = stacklists__list(sl, ref->wustack, ref->wkstack);
	if (list < -1)
		return (int)list;
	if (list >= 0)
		colbuf__set(c, TC_WAKER_STACK, (uint64_t)list);
	return 0;
}

static int emit(struct rows *r, struct colbuf *c, struct stacklists *sl, const struct rowref *ref,
		struct rg_writer *g)
{
	bool exit_half = ref->item & ROWREF_EXIT_HALF;
	int32_t u = ref->ustack, k = ref->kstack;
	const struct rec_hdr *h;
	const void *data;
	uint32_t cpu, len;
	int64_t id, list;
	int ev, err;

	/* Checked when it was indexed; a spool changed since then is an I/O error. */
	err = spool_blocks__item(r->blocks, ref->item & ~ROWREF_EXIT_HALF, REC_MAX_FIXED, &data, &len);
	if (err)
		return err;
	h = data;
	if (len < sizeof(*h) || h->kind == 0 || h->kind >= REC__COUNT || len < rec_fixed_size(h->kind))
		return -EIO;
	cpu = h->cpu;

	switch (h->kind) {
	case REC_SYSCALL:
	case REC_SYSCALL_PATH:
	case REC_SYSCALL_UNFINISHED:
		if ((err = syscols__cols(r, c, (const void *)h, exit_half, g, &ev, &cpu)))
			return err;
		break;
	case REC_PROBE:
	case REC_PROBE_STR:
	case REC_PROBE_CALL:
		if ((err = probe_rows__cols(r->probes, c, h, len, exit_half, g, &ev)))
			return err;
		break;
	case REC_OFF_CPU: {
		const struct rec_off_cpu *o = (const void *)h;

		ev = EV_OFF_CPU;
		if ((err = waker_col(c, sl, ref, g)))
			return err;
		colbuf__set(c, TC_LATENCY, o->duration);
		colbuf__set(c, TC_PREV_STATE, (uint64_t)trace_state(o->prev_state));
		colbuf__set(c, TC_WAKER_PID, o->waker_pid);
		colbuf__set(c, TC_WAKER_TGID, o->waker_tgid);
		if (o->waker_pid && o->waker_comm[0] &&
		    (err = comm_col(r, c, TC_WAKER_NAME, o->waker_comm, g)))
			return err;
		if (o->runnable != REC_RUNNABLE_UNKNOWN && o->runnable <= o->duration)
			colbuf__set(c, TC_RUNNABLE, o->runnable);
		break;
	}
	case REC_SCHED_SWITCH: {
		const struct rec_sched_switch *s = (const void *)h;

		ev = EV_SCHED_SWITCH;
		colbuf__set(c, TC_PREV_PID, s->prev_pid);
		colbuf__set(c, TC_NEXT_PID, s->next_pid);
		colbuf__set(c, TC_PREV_STATE, (uint64_t)trace_state(s->prev_state));
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
		if (f->child_tgid != h->tgid && (err = fdpaths__fork(&r->fdp, h->tgid, f->child_tgid)))
			return err;
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
		if (x->group_dead)
			fdpaths__gone(&r->fdp, h->tgid);
		break;
	}
	case REC_EXEC: {
		const struct rec_exec *x = (const void *)h;

		ev = EV_PROCESS_EXEC;
		id = rows__file_id(r, x->filename, sizeof(x->filename), g);
		if (id < 0)
			return (int)id;
		colbuf__set(c, TC_FILENAME, (uint64_t)id);
		if ((id = argvcol__list(&r->argv, ref->item & ~ROWREF_EXIT_HALF)) >= 0)
			colbuf__set(c, TC_ARGV, (uint64_t)id);
		fdpaths__exec(&r->fdp, h->tgid);
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
	if (h->comm[0] && (err = comm_col(r, c, TC_PROCESS_NAME, h->comm, g)))
		return err;
	if (u != r->last_u || k != r->last_k) {
		if (stacklists__may_move(sl, u, k) && (err = rg_writer__wait(g)))
			return err;
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
		colbuf__set(c, TC_STACK_MODULES, (uint64_t)list);
		if ((err = stacknum__set(c, &r->lists_seen, (uint32_t)list)))
			return err;
		colbuf__set(c, TC_STACK_KIND, u >= 0 && k >= 0 ? 2 : u >= 0 ? 0 : 1);
		colbuf__set(c, TC_WEIGHT, h->weight ? h->weight : 1);
		if (u >= 0)
			colbuf__set(c, TC_STACK_ID, (uint32_t)u);
		if (k >= 0)
			colbuf__set(c, TC_KSTACK_ID, (uint32_t)k);
	}
	return 0;
}

/* What the writer will read for row group c: the tables as they are now. */
static void snapshot(struct rows *r, struct stacklists *sl, struct pq_dict *comm, struct pq_dict *file,
		     struct pq_lists *lists, struct pq_lists *mods, struct pq_dict *pargs)
{
	probe_rows__args_dict(r->probes, pargs);
	*comm = (struct pq_dict){ r->comms.strs, r->comms.lens, r->comms.n };
	*file = (struct pq_dict){ r->files.strs, r->files.lens, r->files.n };
	*lists = *stacklists__lists(sl);
	*mods = *stacklists__modules_lists(sl);
}

int rows__write(struct rows *r, struct pq_writer *w, struct stacklists *sl, uint32_t rg_rows)
{
	uint64_t nrows = runs__rows(r->runs);
	uint32_t cap = nrows && nrows < rg_rows ? (uint32_t)nrows : rg_rows;
	struct pq_dict comm[2], file[2], pargs[2];
	struct pq_lists lists[2], mods[2];
	struct colbuf c[2] = { 0 };
	struct rg_writer g;
	struct rowref ref;
	int err = 0, got, cur = 0, nbuf = nrows > rg_rows ? 2 : 1;

	/* Small traces get small buffers (fresh pages are expensive on some VMs), and one. */
	for (int i = 0; i < nbuf && !err; i++) {
		err = colbuf__init(&c[i], trace_schema__pq_columns(), TC__COUNT, cap);
		if (err)
			break;
		colbuf__set_dict(&c[i], TC_EVENT_TYPE, probe_rows__event_dict(r->probes), NULL);
		colbuf__set_dict(&c[i], TC_PROBE_ARGS, &pargs[i], NULL);
		colbuf__set_dict(&c[i], TC_STACK_KIND, &stack_kind_dict, NULL);
		colbuf__set_dict(&c[i], TC_PROCESS_NAME, &comm[i], NULL);
		colbuf__set_dict(&c[i], TC_WAKER_NAME, &comm[i], NULL);
		colbuf__set_dict(&c[i], TC_FILENAME, &file[i], NULL);
		colbuf__set_dict(&c[i], TC_FD_PATH, &file[i], NULL);
		colbuf__set_dict(&c[i], TC_ARGV, &r->argv.dict, &r->argv.lists);
		colbuf__set_dict(&c[i], TC_STACK_TRACE, stacklists__dict(sl), &lists[i]);
		colbuf__set_dict(&c[i], TC_STACK_MODULES, stacklists__modules_dict(sl), &mods[i]);
		colbuf__set_dict(&c[i], TC_WAKER_STACK, stacklists__dict(sl), &lists[i]);
	}
	if (err) {
		colbuf__free(&c[0]);
		return err;
	}
	rg_writer__start(&g, w, nbuf > 1);
	while (!err && (got = runs__next(r->runs, &ref)) != 0) {
		err = got < 0 ? got : emit(r, &c[cur], sl, &ref, &g);
		if (!err && colbuf__next(&c[cur])) {
			snapshot(r, sl, &comm[cur], &file[cur], &lists[cur], &mods[cur], &pargs[cur]);
			err = rg_writer__submit(&g, &c[cur]);
			cur = (cur + 1) % nbuf;
		}
	}
	/* The last, partial row group; with one buffer it may still be in the writer's hands. */
	if (!err)
		err = rg_writer__wait(&g);
	if (!err) {
		snapshot(r, sl, &comm[cur], &file[cur], &lists[cur], &mods[cur], &pargs[cur]);
		err = rg_writer__submit(&g, &c[cur]);
	}
	err = rg_writer__stop(&g) ?: err;
	colbuf__free(&c[0]);
	colbuf__free(&c[1]);
	return err;
}

void rows__stats(const struct rows *r, struct rows_stats *out)
{
	out->rows = runs__rows(r->runs);
	out->records = r->nrec;
	out->bad_records = r->bad;
	out->spilled_runs = runs__spilled(r->runs);
}
