/* The workload behind `probex synth`: an "app-server" with a Tokio worker pool that forks a
 * database, a cache, an interpreter, a compiler and a stream of short-lived git/sh commands.
 * Each thread runs syscalls one after another (so its enter and exit rows alternate, as a
 * real thread's do), takes CPU samples, faults and context switches, with latencies and
 * sizes spread the way real ones are (mostly fast, long tails). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/schema.h"
#include "synth/synth_model.h"
#include "common/rng.h"

enum op {
	OP_CPU, OP_SWITCH, OP_FAULT, OP_READ, OP_WRITE, OP_MMAP, OP_MUNMAP, OP_BRK,
	OP_FSYNC, OP_FDATASYNC, OP_URING, OP_URING_REG, OP__COUNT,
};

/* Rows one op produces (an io_uring_enter submits 1–4 requests, 2.5 on average). */
static const double op_rows[OP__COUNT] = { 1, 2.4, 1, 2, 2, 2, 2, 2, 2, 2, 4.5, 2 };

enum profile { PR_MAIN, PR_WORKER, PR_DB, PR_CACHE, PR_INTERP, PR_COMPILER, PR_SHELL, PR__COUNT };

/* Relative op frequencies per kind of thread. */
static const unsigned char profile_mix[PR__COUNT][OP__COUNT] = {
	/*            cpu sw flt  rd  wr mmap unm brk fsy fds uring reg */
	[PR_MAIN]     = { 40, 15, 5, 10, 5, 4, 3, 6, 0, 0, 0, 0 },
	[PR_WORKER]   = { 25, 15, 3, 25, 18, 1, 1, 0, 0, 0, 10, 1 },
	[PR_DB]       = { 20, 10, 6, 25, 20, 2, 2, 2, 3, 4, 0, 0 },
	[PR_CACHE]    = { 30, 20, 4, 20, 20, 2, 1, 3, 0, 1, 0, 0 },
	[PR_INTERP]   = { 40, 8, 10, 8, 4, 6, 5, 15, 0, 0, 0, 0 },
	[PR_COMPILER] = { 50, 5, 20, 8, 3, 6, 4, 4, 0, 0, 0, 0 },
	[PR_SHELL]    = { 20, 10, 25, 20, 8, 10, 4, 3, 0, 0, 0, 0 },
};

const char *const synth_names[] = { "app-server", "tokio-runtime-w", "postgres", "redis-server",
	"python3", "rustc", "cc1", "git", "sh" };
const unsigned int synth_names_count = sizeof(synth_names) / sizeof(synth_names[0]);

struct sthread {
	uint32_t tid, tgid, parent;
	int name, prog, profile;
	uint64_t start, end;	/* relative to the trace start */
	double weight;
	bool forked, exits, preexisting;
};

#define MAX_THREADS 96
#define NCPU 8

struct sim {
	const struct synth_params *p;
	struct synth_stacks *st;
	synth_emit_fn emit;
	void *ctx;
	struct rng rng;
	uint64_t base, emitted;
	struct sthread th[MAX_THREADS];
	unsigned int nth;
};

static void add_thread(struct sim *s, uint32_t tid, uint32_t tgid, uint32_t parent, int name,
		       int prog, int profile, double start, double end, double weight, bool exits)
{
	struct sthread *t = &s->th[s->nth++];
	uint64_t d = s->p->duration_ns;

	*t = (struct sthread){ .tid = tid, .tgid = tgid, .parent = parent, .name = name,
			       .prog = prog, .profile = profile, .start = (uint64_t)(start * d),
			       .end = (uint64_t)(end * d), .weight = weight, .forked = parent != 0,
			       .exits = exits };
}

/* Multi-threaded server processes started by the root, in start order. */
static const struct server_group {
	unsigned int threads;
	int name, prog, profile;
	double start, end, weight;
	bool exits;
} servers[] = {
	{ 4, 2, 1, PR_DB, 0.05, 1, 2, false },
	{ 2, 3, 3, PR_CACHE, 0.08, 1, 1.5, false },
	{ 3, 4, 2, PR_INTERP, 0.15, 0.75, 2, true },
	{ 6, 5, 4, PR_COMPILER, 0.2, 0.6, 2.5, true },
};

static void build_threads(struct sim *s)
{
	uint32_t root = 2000 + (uint32_t)(s->p->seed % 97) * 10, tid;
	unsigned int i;

	add_thread(s, root, root, 0, 0, 0, PR_MAIN, 0, 1, 2, false);
	s->th[0].preexisting = true;
	for (i = 1; i <= 11; i++) {
		/* Two workers were already running when tracing began: their first syscall
		 * started before the trace, so its exit row has no enter row. */
		add_thread(s, root + i, root, i <= 2 ? 0 : root, 1, 0, PR_WORKER, 0.001 * i, 1, 3, false);
		s->th[s->nth - 1].preexisting = i <= 2;
	}
	tid = root + 100;
	for (size_t g = 0; g < sizeof(servers) / sizeof(servers[0]); g++, tid += 10) {
		const struct server_group *sg = &servers[g];

		/* The first thread of a group is its process, forked by the root. */
		for (i = 0; i < sg->threads; i++)
			add_thread(s, tid + i, tid, i ? tid : root, sg->name, sg->prog, sg->profile,
				   sg->start + 0.0001 * i, sg->end, sg->weight, sg->exits);
	}
	add_thread(s, tid, tid, root, 6, 5, PR_COMPILER, 0.4, 0.55, 3, true);
	tid += 10;
	for (i = 0; i < 30; i++) {
		/* Short-lived commands; some vanish before /proc/<tid>/comm is read, so the
		 * trace holds no name for them. */
		int name = i % 7 == 3 ? -1 : (i % 2 ? 8 : 7);

		add_thread(s, tid + i, tid + i, root + 3, name, 6, PR_SHELL, 0.02 + 0.03 * i,
			   0.024 + 0.03 * i, 1, true);
	}
}

static double profile_rows_per_op(int profile)
{
	double w = 0, rows = 0;

	for (int o = 0; o < OP__COUNT; o++) {
		w += profile_mix[profile][o];
		rows += profile_mix[profile][o] * op_rows[o];
	}
	return rows / w;
}

static int pick_op(struct sim *s, int profile)
{
	unsigned int total = 0, r;
	int o;

	for (o = 0; o < OP__COUNT; o++)
		total += profile_mix[profile][o];
	r = (unsigned int)rng__below(&s->rng, total);
	for (o = 0; o < OP__COUNT; o++) {
		if (r < profile_mix[profile][o])
			return o;
		r -= profile_mix[profile][o];
	}
	return OP_CPU;
}

/* Per-thread state that syscalls carry from one call to the next. */
struct sim_thread {
	const struct sthread *t;
	uint64_t brk, mmap_next, mapped[16];
	unsigned int nmapped, cpu;
	int ring_fd;
	bool first_op, brk_known;
};

static void row_init(struct sim *s, struct synth_row *r, const struct sim_thread *ts, int type,
		     uint64_t t)
{
	memset(r, 0, sizeof(*r));
	r->ts = s->base + t;
	r->pid = ts->t->tid;
	r->tgid = ts->t->tgid;
	r->event_type = (uint8_t)type;
	r->cpu = (uint8_t)((ts->cpu + (t >> 22)) % NCPU);
	r->name = ts->t->name;
	r->stack = -1;
	if (r->name >= 0)
		r->cols |= SR_NAME;
}

/* Attach a stack: chain picks the call path within the thread's program. */
static int row_stack(struct sim *s, struct synth_row *r, const struct sim_thread *ts, int ctx,
		     unsigned int nchains)
{
	uint64_t h = rng__next(&s->rng);
	unsigned int variant = (unsigned int)(h >> 40) & 1;
	int id;

	if (h % 100 == 0)	/* bpf_get_stackid failed: no stack on this row */
		return 0;
	id = synth_stacks__get(s->st, (unsigned int)ts->t->prog, (unsigned int)ctx,
			       (unsigned int)((h >> 8) % nchains),
			       variant);
	if (id < 0)
		return id;
	r->stack = id;
	r->cols |= SR_STACK;
	if (ctx == SYN_CTX_CPU) {
		r->stack_kind = SK_USER;
	} else if (ctx == SYN_CTX_URING_COMPLETE && variant == 0) {
		r->stack_kind = SK_KERNEL;
		r->cols |= SR_STACK_IDS;
		r->stack_id = -1;
		r->kernel_stack_id = 2 * id + 2;
	} else {
		r->stack_kind = SK_BOTH;
		r->cols |= SR_STACK_IDS;
		r->stack_id = 2 * id + 1;
		r->kernel_stack_id = 2 * id + 2;
	}
	return 0;
}

static int put(struct sim *s, const struct synth_row *r, bool droppable)
{
	if (droppable && s->p->lost_ppm && rng__below(&s->rng, 1000000) < s->p->lost_ppm)
		return 0;
	s->emitted++;
	return s->emit(s->ctx, r);
}

struct call {
	int enter_type, ctx;
	uint64_t lat;
	bool has_fd, has_count, has_address;
	int64_t fd, ret;
	uint64_t count, address;
};

/* One syscall: an enter row at t and an exit row at t + lat, both with the caller's stack. */
static int emit_call(struct sim *s, struct sim_thread *ts, const struct call *c, uint64_t t,
		     bool skip_enter)
{
	struct synth_row r;
	int err;

	row_init(s, &r, ts, c->enter_type, t);
	if ((err = row_stack(s, &r, ts, c->ctx, 4)))
		return err;
	if (c->has_fd) {
		r.fd = c->fd;
		r.cols |= SR_FD;
	}
	if (c->has_count) {
		r.count = c->count;
		r.cols |= SR_COUNT;
	}
	if (c->has_address) {
		r.address = c->address;
		r.cols |= SR_ADDRESS;
	}
	if (!skip_enter && (err = put(s, &r, true)))
		return err;
	r.ts += c->lat;
	r.event_type = (uint8_t)(c->enter_type + 1);
	r.cols &= ~(SR_FD | SR_COUNT | SR_ADDRESS);
	r.cols |= SR_RET | SR_LATENCY;
	r.ret = c->ret;
	r.latency = c->lat;
	return put(s, &r, true);
}

static uint64_t read_latency(struct sim *s)
{
	uint64_t u = rng__below(&s->rng, 100);

	if (u < 80)
		return rng__logu(&s->rng, 800, 8000);
	if (u < 97)
		return rng__logu(&s->rng, 8000, 200000);
	return rng__logu(&s->rng, 200000, 20000000);
}

static int do_uring(struct sim *s, struct sim_thread *ts, uint64_t t, uint64_t *lat)
{
	static const uint64_t sizes[] = { 4096, 16384, 65536, 131072 };
	struct call c = { .enter_type = EV_IO_URING_ENTER_ENTER, .ctx = SYN_CTX_URING_ENTER,
			  .has_fd = true, .has_count = true };
	unsigned int n = 1 + (unsigned int)rng__below(&s->rng, 4), i;
	struct synth_row r;
	int err;

	if (ts->ring_fd < 0) {
		struct call setup = { .enter_type = EV_IO_URING_SETUP_ENTER,
				      .ctx = SYN_CTX_URING_SETUP, .has_fd = true, .fd = 256,
				      .has_count = true, .count = 0x7ffd5a3c1e40ull + ts->t->tid * 64,
				      .lat = rng__logu(&s->rng, 20000, 90000) };

		ts->ring_fd = 5 + (int)(ts->t->tid % 7);
		setup.ret = ts->ring_fd;
		if ((err = emit_call(s, ts, &setup, t, false)))
			return err;
		t += setup.lat + 500;
	}
	c.fd = ts->ring_fd;
	c.count = n;
	c.ret = n;
	c.lat = rng__logu(&s->rng, 2000, 30000);
	if ((err = emit_call(s, ts, &c, t, false)))
		return err;
	for (i = 0; i < n; i++) {
		uint64_t submit = t + 300 + 200 * i, done = submit + rng__logu(&s->rng, 10000, 3000000);
		bool write = rng__below(&s->rng, 3) == 0;

		row_init(s, &r, ts, EV_IO_URING_COMPLETE, done);
		r.cpu = (uint8_t)rng__below(&s->rng, NCPU);
		if ((err = row_stack(s, &r, ts, SYN_CTX_URING_COMPLETE, 4)))
			return err;
		r.cols |= SR_URING | SR_LATENCY;
		r.submit_ts = s->base + submit;
		r.latency = done - submit;
		r.io_uring_opcode = write ? 23 : 22;	/* IORING_OP_WRITE / IORING_OP_READ */
		r.io_uring_res = rng__below(&s->rng, 50) == 0 ? -11 :
				 (int32_t)sizes[rng__below(&s->rng, 4)];
		if ((err = put(s, &r, false)))
			return err;
	}
	*lat = c.lat;
	return 0;
}

/* The switch sw blocked the thread: its off_cpu row (5-50 us, woken by another thread or,
 * one time in five, by a timer) and its switch back in from the idle task. */
static int block(struct sim *s, struct sim_thread *ts, const struct synth_row *sw, uint64_t t,
		 uint64_t *lat)
{
	const struct sthread *w = &s->th[rng__below(&s->rng, s->nth)];
	struct synth_row r = *sw;
	int err;

	*lat = 5000 + rng__below(&s->rng, 45000);
	r.event_type = EV_OFF_CPU;
	r.cols = (r.cols & ~SR_SWITCH) | SR_OFFCPU | SR_LATENCY;
	r.prev_pid = r.next_pid = r.prev_tgid = r.next_tgid = 0;
	r.latency = *lat;
	if (rng__below(&s->rng, 5) && w->tid != ts->t->tid) {
		r.waker_pid = w->tid;
		r.waker_tgid = w->tgid;
		r.waker_name = w->name;
	}
	if ((err = put(s, &r, false)))
		return err;
	row_init(s, &r, ts, EV_SCHED_SWITCH, t + *lat);
	r.cols |= SR_SWITCH;
	r.next_pid = ts->t->tid;
	r.next_tgid = ts->t->tgid;
	return put(s, &r, false);
}

static int do_op(struct sim *s, struct sim_thread *ts, int op, uint64_t t, uint64_t *lat)
{
	static const uint64_t rsizes[] = { 4096, 8192, 16384, 65536, 131072, 1048576 };
	struct call c = { 0 };
	const struct sthread *next;
	struct synth_row r;
	uint64_t u;
	int err;

	*lat = 0;
	switch (op) {
	case OP_CPU:
		row_init(s, &r, ts, EV_CPU_SAMPLE, t);
		if (rng__below(&s->rng, 33) && (err = row_stack(s, &r, ts, SYN_CTX_CPU, 30)))
			return err;
		if (r.stack_kind != SK_USER) {	/* 0 frames: no stack and no stack_kind */
			r.cols &= ~SR_STACK;
			r.stack = -1;
		}
		return put(s, &r, false);
	case OP_SWITCH:
		row_init(s, &r, ts, EV_SCHED_SWITCH, t);
		if ((err = row_stack(s, &r, ts, SYN_CTX_SWITCH, 6)))
			return err;
		r.cols |= SR_SWITCH;
		r.prev_pid = ts->t->tid;
		r.prev_tgid = ts->t->tgid;
		u = rng__below(&s->rng, 10);
		next = u < 5 ? NULL : &s->th[rng__below(&s->rng, s->nth)];
		r.next_pid = next ? next->tid : 0;	/* 0: the idle task */
		r.next_tgid = next ? next->tgid : 0;
		r.prev_state = u < 3 ? 0 : (u < 9 ? 1 : 2);
		if ((err = put(s, &r, false)) || !r.prev_state)
			return err;
		return block(s, ts, &r, t, lat);
	case OP_FAULT:
		row_init(s, &r, ts, EV_PAGE_FAULT, t);
		if ((err = row_stack(s, &r, ts, SYN_CTX_FAULT, 6)))
			return err;
		r.cols |= SR_ADDRESS | SR_ERROR_CODE;
		r.address = (rng__below(&s->rng, 2) ? 0x7f0000000000ull : 0x55d400000000ull) +
			    (rng__next(&s->rng) & 0xffffffff000ull) + rng__below(&s->rng, 4096);
		r.error_code = (uint64_t[]){ 4, 6, 7, 0x14, 0x15 }[rng__below(&s->rng, 5)];
		return put(s, &r, false);
	case OP_READ:
	case OP_WRITE:
		c.enter_type = op == OP_READ ? EV_READ_ENTER : EV_WRITE_ENTER;
		c.ctx = op == OP_READ ? SYN_CTX_READ : SYN_CTX_WRITE;
		c.has_fd = c.has_count = true;
		c.fd = 3 + (int64_t)rng__below(&s->rng, 40);
		c.count = op == OP_READ ? rsizes[rng__below(&s->rng, 6)] :
					  rng__logu(&s->rng, 16, 131072);
		u = rng__below(&s->rng, 100);
		c.ret = u < 75 ? (int64_t)c.count : u < 90 ? (int64_t)rng__below(&s->rng, c.count) :
			u < 95 ? 0 : -11;	/* short, EOF, EAGAIN */
		c.lat = op == OP_READ ? read_latency(s) :
			(u < 85 ? rng__logu(&s->rng, 1500, 15000) : rng__logu(&s->rng, 15000, 2000000));
		break;
	case OP_MMAP:
		c = (struct call){ .enter_type = EV_MMAP_ENTER, .ctx = SYN_CTX_MMAP, .has_count = true,
				   .has_address = true };
		c.count = rng__below(&s->rng, 5) ? 4096 * (1 + rng__below(&s->rng, 64)) :
			  (uint64_t)2 << (20 + rng__below(&s->rng, 6));
		c.lat = rng__logu(&s->rng, 2000, 40000);
		if (rng__below(&s->rng, 100) == 0) {
			c.ret = -12;	/* ENOMEM */
		} else {
			c.ret = (int64_t)ts->mmap_next;
			ts->mapped[ts->nmapped++ % 16] = c.count;
			ts->mmap_next -= (c.count + 0xfff) & ~0xfffull;
		}
		break;
	case OP_MUNMAP:
		c = (struct call){ .enter_type = EV_MUNMAP_ENTER, .ctx = SYN_CTX_MUNMAP,
				   .has_count = true, .has_address = true };
		c.count = ts->nmapped ? ts->mapped[rng__below(&s->rng, ts->nmapped < 16 ? ts->nmapped : 16)] : 4096;
		c.address = ts->mmap_next + 0x1000 * (1 + rng__below(&s->rng, 256));
		c.ret = rng__below(&s->rng, 100) == 0 ? -22 : 0;
		c.lat = rng__logu(&s->rng, 3000, 150000);
		break;
	case OP_BRK:
		c = (struct call){ .enter_type = EV_BRK_ENTER, .ctx = SYN_CTX_BRK, .has_address = true };
		u = rng__below(&s->rng, 100);
		if (!ts->brk_known || u < 5) {
			c.address = 0;	/* brk(0): query the break */
		} else if (u < 85) {
			c.address = ts->brk + 0x21000 * (1 + rng__below(&s->rng, 8));
		} else {
			uint64_t down = 0x21000 * (1 + rng__below(&s->rng, 4));

			c.address = ts->brk - (down < ts->brk - 0x55d4a0000000ull ? down : 0);
		}
		if (c.address)
			ts->brk = c.address;
		ts->brk_known = true;
		c.ret = (int64_t)ts->brk;
		c.lat = rng__logu(&s->rng, 1000, 20000);
		break;
	case OP_FSYNC:
	case OP_FDATASYNC:
		c.enter_type = op == OP_FSYNC ? EV_FSYNC_ENTER : EV_FDATASYNC_ENTER;
		c.ctx = op == OP_FSYNC ? SYN_CTX_FSYNC : SYN_CTX_FDATASYNC;
		c.has_fd = true;
		c.fd = 3 + (int64_t)rng__below(&s->rng, 40);
		c.lat = op == OP_FSYNC ? rng__logu(&s->rng, 200000, 30000000) :
					 rng__logu(&s->rng, 100000, 15000000);
		break;
	case OP_URING:
		return do_uring(s, ts, t, lat);
	case OP_URING_REG:
		c = (struct call){ .enter_type = EV_IO_URING_REGISTER_ENTER,
				   .ctx = SYN_CTX_URING_REGISTER, .has_fd = true, .has_count = true,
				   .fd = ts->ring_fd < 0 ? 5 : ts->ring_fd,
				   .count = rng__below(&s->rng, 4) };
		c.ret = ts->ring_fd < 0 ? -9 : 0;	/* EBADF before setup */
		c.lat = rng__logu(&s->rng, 5000, 50000);
		break;
	}
	*lat = c.lat;
	return emit_call(s, ts, &c, t, ts->t->preexisting && ts->first_op);
}

static int fork_or_exit(struct sim *s, const struct sim_thread *ts, int type, uint64_t t)
{
	struct synth_row r;
	struct sim_thread parent = *ts;
	int err;

	if (type == EV_PROCESS_FORK) {
		/* The row belongs to the forking thread: its pid, tgid, name and stack. */
		for (unsigned int i = 0; i < s->nth; i++)
			if (s->th[i].tid == ts->t->parent)
				parent.t = &s->th[i];
	}
	row_init(s, &r, &parent, type, t);
	if ((err = row_stack(s, &r, &parent, type == EV_PROCESS_FORK ? SYN_CTX_FORK : SYN_CTX_EXIT, 3)))
		return err;
	if (type == EV_PROCESS_FORK) {
		r.cols |= SR_FORK;
		r.parent_pid = ts->t->parent;
		r.child_pid = ts->t->tid;
		r.child_tgid = ts->t->tgid;
		r.is_thread = ts->t->tgid == parent.t->tgid;
	} else {
		r.cols |= SR_EXIT;
		r.is_thread = ts->t->tid != ts->t->tgid;
		r.exit_code = 0;	/* as the 0.1 recorder wrote it: it never read the real code */
	}
	return put(s, &r, false);
}

/* One thread's simulation, resumable: its fork row, then one op at a time, then its exit. */
struct thread_gen {
	const struct sthread *t;
	struct sim_thread ts;
	uint64_t i, nops, free_at, last;
	double slot;
	enum { TG_FORK, TG_OPS, TG_EXIT, TG_DONE } phase;
};

static void thread_gen__init(struct thread_gen *g, const struct sthread *t, uint64_t nops)
{
	*g = (struct thread_gen){
		.t = t, .nops = nops, .free_at = t->start, .last = t->start,
		.slot = nops ? (double)(t->end - t->start) / (double)nops : 1e18,
		.ts = { .t = t, .brk = 0x55d4a0000000ull + ((uint64_t)t->tgid << 24),
			.mmap_next = 0x7f8000000000ull - ((uint64_t)t->tid << 32),
			.cpu = t->tid % NCPU, .ring_fd = -1, .first_op = true },
	};
}

/* The next piece of the thread's rows: 1, 0 when it has ended, or negative errno. */
static int thread_gen__step(struct sim *s, struct thread_gen *g)
{
	const struct sthread *t = g->t;
	int err;

	switch (g->phase) {
	case TG_FORK:
		g->phase = TG_OPS;
		if (t->forked)
			return fork_or_exit(s, &g->ts, EV_PROCESS_FORK,
					    t->start > 20000 ? t->start - 20000 : 0) ?: 1;
		return 1;
	case TG_OPS:
		if (g->i < g->nops) {
			uint64_t at = t->start + (uint64_t)(g->slot * ((double)g->i + rng__unit(&s->rng) * 0.5));
			int op = g->ts.first_op && t->preexisting ? OP_READ : pick_op(s, t->profile);
			uint64_t lat;

			/* A thread that blocked for long falls behind its schedule and ends late
			 * rather than doing fewer calls, so the row count follows from the budget. */
			if (at < g->free_at)
				at = g->free_at;
			if ((err = do_op(s, &g->ts, op, at, &lat)))
				return err;
			g->ts.first_op = false;
			g->free_at = at + lat + 50 + rng__below(&s->rng, 200);
			g->last = g->free_at;
			g->i++;
			return 1;
		}
		g->phase = TG_EXIT;
		/* fall through */
	case TG_EXIT:
		g->phase = TG_DONE;
		if (t->exits)
			return fork_or_exit(s, &g->ts, EV_PROCESS_EXIT, g->last + 1000) ?: 1;
		return 1;
	default:
		return 0;
	}
}

struct synth_sim {
	struct sim s;
	struct thread_gen g[MAX_THREADS];
};

int synth_sim__new(struct synth_sim **out, const struct synth_params *p, double scale,
		   struct synth_stacks *st)
{
	struct synth_sim *sim = calloc(1, sizeof(*sim));
	struct sim *s;
	double total = 0;

	if (!sim)
		return -ENOMEM;
	s = &sim->s;
	*s = (struct sim){ .p = p, .st = st, .rng = { .state = rng__mix(p->seed) } };
	/* A monotonic clock some twenty minutes after boot, different per seed. */
	s->base = 1200000000000ull + (p->seed % 1000) * 1000003ull;
	build_threads(s);
	for (unsigned int i = 0; i < s->nth; i++)
		total += s->th[i].weight * (double)(s->th[i].end - s->th[i].start);
	for (unsigned int i = 0; i < s->nth; i++) {
		const struct sthread *t = &s->th[i];
		double rows = (double)p->events * scale * t->weight * (double)(t->end - t->start) / total;

		thread_gen__init(&sim->g[i], t, (uint64_t)(rows / profile_rows_per_op(t->profile)));
	}
	*out = sim;
	return 0;
}

unsigned int synth_sim__threads(const struct synth_sim *sim)
{
	return sim->s.nth;
}

int synth_sim__step(struct synth_sim *sim, unsigned int thread, synth_emit_fn emit, void *ctx)
{
	sim->s.emit = emit;
	sim->s.ctx = ctx;
	return thread_gen__step(&sim->s, &sim->g[thread]);
}

uint64_t synth_sim__frontier(const struct synth_sim *sim, unsigned int thread)
{
	const struct thread_gen *g = &sim->g[thread];

	/* Each later op starts at free_at or after it (the exit row too); the fork row is first. */
	if (g->phase == TG_DONE)
		return UINT64_MAX;
	return g->phase == TG_FORK ? 0 : sim->s.base + g->free_at;
}

void synth_sim__free(struct synth_sim *sim)
{
	free(sim);
}
