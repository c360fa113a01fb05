#include <errno.h>
#include <pthread.h>
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

/* A second thread writes one row group while the next is filled.  The tables the writer
 * reads (names, stack lists) only grow; before a growth could move them, the filling side
 * waits for the writer (rare: when a table is at capacity). */
struct rg_writer {
	struct pq_writer *w;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct colbuf *job;
	bool started, quit;
	int err;
};

static void *rg_writer__run(void *arg)
{
	struct rg_writer *g = arg;

	pthread_mutex_lock(&g->mu);
	for (;;) {
		struct colbuf *c;
		int err;

		while (!g->job && !g->quit)
			pthread_cond_wait(&g->cv, &g->mu);
		if (!g->job)
			break;
		c = g->job;
		pthread_mutex_unlock(&g->mu);
		err = g->err ? g->err : colbuf__flush(c, g->w);
		pthread_mutex_lock(&g->mu);
		g->err = g->err ?: err;
		g->job = NULL;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

static void rg_writer__start(struct rg_writer *g, struct pq_writer *w)
{
	*g = (struct rg_writer){ .w = w };
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	g->started = !pthread_create(&g->thread, NULL, rg_writer__run, g);
}

/* Wait until no row group is being written; the writer's first error. */
static int rg_writer__wait(struct rg_writer *g)
{
	int err;

	if (!g->started)
		return g->err;
	pthread_mutex_lock(&g->mu);
	while (g->job)
		pthread_cond_wait(&g->cv, &g->mu);
	err = g->err;
	pthread_mutex_unlock(&g->mu);
	return err;
}

static int rg_writer__submit(struct rg_writer *g, struct colbuf *c)
{
	int err = rg_writer__wait(g);

	if (err)
		return err;
	if (!g->started)
		return g->err = colbuf__flush(c, g->w);
	pthread_mutex_lock(&g->mu);
	g->job = c;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	return 0;
}

static int rg_writer__stop(struct rg_writer *g)
{
	int err = rg_writer__wait(g);

	if (g->started) {
		pthread_mutex_lock(&g->mu);
		g->quit = true;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
		pthread_join(g->thread, NULL);
		g->started = false;
	}
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	return err;
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
		if (r->files.n == r->files.cap && (err = rg_writer__wait(g)))
			return err;
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
			if (r->comms.n == r->comms.cap && (err = rg_writer__wait(g)))
				return err;
			id = strtab__intern(&r->comms, h->comm, strnlen(h->comm, PROBEX_COMM_LEN));
			if (id < 0)
				return (int)id;
			memcpy(r->last_comm, h->comm, PROBEX_COMM_LEN);
			r->last_comm_id = (uint32_t)id;
		}
		colbuf__set(c, TC_PROCESS_NAME, r->last_comm_id);
	}
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
		     struct pq_lists *lists)
{
	*comm = (struct pq_dict){ r->comms.strs, r->comms.lens, r->comms.n };
	*file = (struct pq_dict){ r->files.strs, r->files.lens, r->files.n };
	*lists = *stacklists__lists(sl);
}

int rows__write(struct rows *r, struct pq_writer *w, struct stacklists *sl, uint32_t rg_rows)
{
	uint64_t nrows = runs__rows(r->runs);
	uint32_t cap = nrows && nrows < rg_rows ? (uint32_t)nrows : rg_rows;
	struct pq_dict comm[2], file[2];
	struct pq_lists lists[2];
	struct colbuf c[2] = { 0 };
	struct rg_writer g;
	struct rowref ref;
	int err = 0, got, cur = 0, nbuf = nrows > rg_rows ? 2 : 1;

	/* Small traces get small buffers (fresh pages are expensive on some VMs), and one. */
	for (int i = 0; i < nbuf && !err; i++) {
		err = colbuf__init(&c[i], trace_schema__pq_columns(), TC__COUNT, cap);
		if (err)
			break;
		colbuf__set_dict(&c[i], TC_EVENT_TYPE, trace_schema__event_dict(), NULL);
		colbuf__set_dict(&c[i], TC_STACK_KIND, &stack_kind_dict, NULL);
		colbuf__set_dict(&c[i], TC_PROCESS_NAME, &comm[i], NULL);
		colbuf__set_dict(&c[i], TC_FILENAME, &file[i], NULL);
		colbuf__set_dict(&c[i], TC_STACK_TRACE, stacklists__dict(sl), &lists[i]);
	}
	if (err) {
		colbuf__free(&c[0]);
		return err;
	}
	rg_writer__start(&g, w);
	while (!err && (got = runs__next(r->runs, &ref)) != 0) {
		err = got < 0 ? got : emit(r, &c[cur], sl, &ref, &g);
		if (!err && colbuf__next(&c[cur])) {
			snapshot(r, sl, &comm[cur], &file[cur], &lists[cur]);
			err = rg_writer__submit(&g, &c[cur]);
			cur = (cur + 1) % nbuf;
		}
	}
	/* The last, partial row group; with one buffer it may still be in the writer's hands. */
	if (!err)
		err = rg_writer__wait(&g);
	if (!err) {
		snapshot(r, sl, &comm[cur], &file[cur], &lists[cur]);
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
