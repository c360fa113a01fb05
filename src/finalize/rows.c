#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/records.h"
#include "common/hmap.h"
#include "symbolize/addrspace.h"
#include "parquet/colbuf.h"
#include "finalize/rows.h"
#include "trace/schema.h"
#include "trace/syscalls.h"
#include "finalize/stacklists.h"
#include "finalize/stackset.h"
#include "finalize/unwind.h"
#include "parquet/strtab.h"

/* A row: which record, and for paired syscalls which half (top bit of rec). 12 bytes:
 * this index is the biggest thing finalization allocates. */
#define REF_EXIT_HALF 0x80000000u

struct rowref {
	uint64_t ts;
	uint32_t rec;
} __attribute__((packed));

struct rows {
	const struct addrspace *as;
	struct unwinder *unw;
	struct stackset *ustacks, *kstacks;
	const void **rec;
	int32_t *ustack, *kstack;
	uint32_t nrec, rec_cap;
	struct rowref *refs;
	uint64_t nrefs, refs_cap;
	struct strtab comms, files;
	struct pq_dict comm_dict, file_dict;
	struct hmap blocks;	/* (tid, ts) of stacked blocking sched_switch → record */
	struct hmap wakers;	/* (wakee tid, its block ts) → waker record, until its off_cpu */
	struct hmap offcpu_waker;	/* off_cpu record → its waker record */
	uint64_t bad;
};


static bool is_syscall(uint8_t kind)
{
	return kind == REC_SYSCALL || kind == REC_SYSCALL_UNFINISHED || kind == REC_SYSCALL_PATH;
}

int rows__new(struct rows **rp, const struct addrspace *as, struct stackset *ustacks,
	      struct stackset *kstacks, uint64_t spool_bytes)
{
	struct rows *r = calloc(1, sizeof(*r));
	/* Every record takes at least its header plus the spool's 8-byte item header. */
	uint64_t max_rec = spool_bytes / (sizeof(struct rec_hdr) + 8) + 1;

	if (!r)
		return -ENOMEM;
	if (max_rec < UINT32_MAX) {
		r->rec = malloc(max_rec * sizeof(*r->rec));
		r->ustack = malloc(max_rec * sizeof(*r->ustack));
		r->kstack = malloc(max_rec * sizeof(*r->kstack));
		r->refs = malloc(2 * max_rec * sizeof(*r->refs));
		if (r->rec && r->ustack && r->kstack && r->refs) {
			r->rec_cap = (uint32_t)max_rec;
			r->refs_cap = 2 * max_rec;
		}
	}
	r->as = as;
	r->ustacks = ustacks;
	r->kstacks = kstacks;
	*rp = r;
	return 0;
}

void rows__free(struct rows *r)
{
	if (!r)
		return;
	free(r->rec);
	free(r->ustack);
	free(r->kstack);
	free(r->refs);
	strtab__free(&r->comms);
	strtab__free(&r->files);
	hmap__free(&r->blocks);
	hmap__free(&r->wakers);
	hmap__free(&r->offcpu_waker);
	free(r);
}

static int add_ref(struct rows *r, uint64_t ts, uint32_t rec, bool exit_half)
{
	if (r->nrefs == r->refs_cap) {
		uint64_t cap = r->refs_cap ? r->refs_cap * 2 : 65536;
		struct rowref *n = realloc(r->refs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->refs = n;
		r->refs_cap = cap;
	}
	r->refs[r->nrefs++] = (struct rowref){ .ts = ts, .rec = rec | (exit_half ? REF_EXIT_HALF : 0) };
	return 0;
}

static int grow_recs(struct rows *r)
{
	uint32_t cap = r->rec_cap ? r->rec_cap * 2 : 65536;
	const void **rec = realloc(r->rec, cap * sizeof(*rec));
	int32_t *u, *k;

	if (!rec)
		return -ENOMEM;
	r->rec = rec;
	u = realloc(r->ustack, cap * sizeof(*u));
	if (!u)
		return -ENOMEM;
	r->ustack = u;
	k = realloc(r->kstack, cap * sizeof(*k));
	if (!k)
		return -ENOMEM;
	r->kstack = k;
	r->rec_cap = cap;
	return 0;
}

void rows__set_unwinder(struct rows *r, struct unwinder *unw)
{
	r->unw = unw;
}

/* A copied user stack, unwound now: its frames' stack id, or -1. */
static int64_t copied_ustack(struct rows *r, const struct rec_hdr *h, uint32_t len, uint32_t fixed)
{
	uint64_t frames[PROBEX_MAX_FRAMES];
	uint16_t flags = 0;
	uint32_t space, n;

	if (!r->unw)
		return -1;
	space = addrspace__space_at(r->as, h->tgid, h->ts);
	n = unwinder__record(r->unw, space, h, len, fixed, frames, PROBEX_MAX_FRAMES, &flags);
	if (!n)
		return -1;
	return stackset__intern(r->ustacks, space, frames, n, flags & REC_F_USTACK_TRUNC, h->ts);
}

static uint64_t block_key(uint32_t tid, uint64_t ts)
{
	return ts ^ ((uint64_t)tid << 40) ^ ((uint64_t)tid >> 24);
}

/* An off_cpu row's stack is the one its blocking sched_switch took (same thread, same
 * time), which the kernel sent first; a sampled-out switch leaves the row without one.
 * Its waker's stack comes the same way, from the waker record sent at the wakeup. */
static int join_block_stack(struct rows *r, uint32_t i)
{
	const struct rec_hdr *h = r->rec[i];
	uint32_t j;

	if (h->kind == REC_SCHED_SWITCH) {
		const struct rec_sched_switch *s = (const void *)h;

		if (h->tid != s->prev_pid || s->prev_state == 0 || s->prev_state == SWITCH_STATE_PREEMPTED ||
		    (r->ustack[i] < 0 && r->kstack[i] < 0))
			return 0;
		return hmap__put(&r->blocks, block_key(h->tid, h->ts), i);
	}
	if (h->kind == REC_WAKER) {
		const struct rec_waker *w = (const void *)h;

		return hmap__put(&r->wakers, block_key(w->wakee_tid, w->wakee_off_ts), i);
	}
	if (h->kind != REC_OFF_CPU)
		return 0;
	if (hmap__get(&r->wakers, block_key(h->tid, h->ts), &j)) {
		const struct rec_waker *w = r->rec[j];

		if (w->wakee_tid == h->tid && w->wakee_off_ts == h->ts &&
		    hmap__put(&r->offcpu_waker, i, j))
			return -ENOMEM;
	}
	if (!hmap__get(&r->blocks, block_key(h->tid, h->ts), &j))
		return 0;
	if (((const struct rec_hdr *)r->rec[j])->tid == h->tid &&
	    ((const struct rec_hdr *)r->rec[j])->ts == h->ts) {
		r->ustack[i] = r->ustack[j];
		r->kstack[i] = r->kstack[j];
	}
	return 0;
}

int rows__add_record(struct rows *r, const void *data, uint32_t len)
{
	const struct rec_hdr *h = data;
	const uint64_t *frames;
	uint32_t i, fixed;
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
		u = stackset__intern(r->ustacks, addrspace__space_at(r->as, h->tgid, h->ts), frames,
				     h->ustack_n, h->flags & REC_F_USTACK_TRUNC, h->ts);
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
	if (r->nrec == r->rec_cap && (err = grow_recs(r)))
		return err;
	i = r->nrec++;
	r->rec[i] = data;
	r->ustack[i] = (int32_t)u;
	r->kstack[i] = (int32_t)k;
	if ((h->kind == REC_SCHED_SWITCH || h->kind == REC_OFF_CPU || h->kind == REC_WAKER) &&
	    (err = join_block_stack(r, i)))
		return err;
	if (h->kind == REC_WAKER)
		return 0;	/* no row of its own */
	if (is_syscall(h->kind)) {
		const struct rec_syscall *s = data;

		err = add_ref(r, s->enter_ts, i, false);
		if (!err && h->kind != REC_SYSCALL_UNFINISHED)
			err = add_ref(r, h->ts, i, true);
		return err;
	}
	return add_ref(r, h->ts, i, false);
}

/* LSD radix sort on the timestamp, 16 bits a pass, skipping digits no key differs in
 * (a trace spans seconds: about 36 varying bits, 3 passes); stable, so equal timestamps
 * keep record order (deterministic output).  Already-sorted input costs one pass. */
int rows__sort(struct rows *r)
{
	struct rowref *tmp, *src, *dst, *t;
	uint64_t diff = 0, n = r->nrefs, *count;
	bool sorted = true;

	if (n < 2)
		return 0;
	for (uint64_t i = 1; i < n; i++) {
		diff |= r->refs[i].ts ^ r->refs[0].ts;
		sorted &= r->refs[i].ts >= r->refs[i - 1].ts;
	}
	if (sorted)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	count = malloc((65536 + 1) * sizeof(*count));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return -ENOMEM;
	}
	src = r->refs;
	dst = tmp;
	for (int shift = 0; shift < 64; shift += 16) {
		if (!((diff >> shift) & 0xffff))
			continue;
		memset(count, 0, (65536 + 1) * sizeof(*count));
		for (uint64_t i = 0; i < n; i++)
			count[((src[i].ts >> shift) & 0xffff) + 1]++;
		for (int b = 0; b < 65536; b++)
			count[b + 1] += count[b];
		for (uint64_t i = 0; i < n; i++)
			dst[count[(src[i].ts >> shift) & 0xffff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != r->refs)
		memcpy(r->refs, src, n * sizeof(*src));
	free(count);
	free(tmp);
	return 0;
}

/* Syscalls past the reference's: the arguments trace/syscalls.c says are decoded. */
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
	case SYS_OTHER:
		other_enter_cols(c, s);
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
	uint32_t rec = ref->rec & ~REF_EXIT_HALF;
	bool exit_half = ref->rec & REF_EXIT_HALF;
	const struct rec_hdr *h = r->rec[rec];
	int32_t u = r->ustack[rec], k = r->kstack[rec];
	uint32_t cpu = h->cpu;
	int64_t id, list;
	int ev;

	switch (h->kind) {
	case REC_SYSCALL:
	case REC_SYSCALL_PATH:
	case REC_SYSCALL_UNFINISHED: {
		const struct rec_syscall *s = (const void *)h;

		ev = event_type__syscall(s->nr, exit_half);
		if (h->sub == SYS_OTHER)
			colbuf__set(c, TC_SYSCALL_NR, s->nr);
		if (exit_half) {
			colbuf__set(c, TC_RET, (uint64_t)s->ret);
			colbuf__set(c, TC_LATENCY, h->ts - s->enter_ts);
		} else {
			cpu = s->enter_cpu;
			syscall_enter_cols(c, s);
			if (h->kind == REC_SYSCALL_PATH) {
				const struct rec_syscall_path *p = (const void *)h;

				id = strtab__intern(&r->files, p->path, strnlen(p->path, sizeof(p->path)));
				if (id < 0)
					return (int)id;
				colbuf__set(c, TC_FILENAME, (uint64_t)id);
			}
		}
		break;
	}
	case REC_OFF_CPU: {
		const struct rec_off_cpu *o = (const void *)h;

		uint32_t j;

		ev = EV_OFF_CPU;
		if (hmap__get(&r->offcpu_waker, rec, &j)) {
			list = stacklists__list(sl, r->ustack[j], r->kstack[j]);
			if (list < -1)
				return (int)list;
			if (list >= 0)
				colbuf__set(c, TC_WAKER_STACK, (uint64_t)list);
		}
		colbuf__set(c, TC_LATENCY, o->duration);
		colbuf__set(c, TC_PREV_STATE, (uint64_t)o->prev_state);
		colbuf__set(c, TC_WAKER_PID, o->waker_pid);
		colbuf__set(c, TC_WAKER_TGID, o->waker_tgid);
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
		id = strtab__intern(&r->comms, h->comm, strnlen(h->comm, PROBEX_COMM_LEN));
		if (id < 0)
			return (int)id;
		colbuf__set(c, TC_PROCESS_NAME, (uint64_t)id);
	}
	list = stacklists__list(sl, u, k);
	if (list < -1)
		return (int)list;
	if (list >= 0) {
		colbuf__set(c, TC_STACK_TRACE, (uint64_t)list);
		colbuf__set(c, TC_STACK_MODULES, (uint64_t)list);
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
	struct colbuf c;
	int err;

	/* Small traces get small buffers: fresh pages are expensive on some VMs. */
	err = colbuf__init(&c, trace_schema__pq_columns(), TC__COUNT,
			   r->nrefs && r->nrefs < rg_rows ? (uint32_t)r->nrefs : rg_rows);
	if (err)
		return err;
	colbuf__set_dict(&c, TC_EVENT_TYPE, trace_schema__event_dict(), NULL);
	colbuf__set_dict(&c, TC_STACK_KIND, &stack_kind_dict, NULL);
	colbuf__set_dict(&c, TC_PROCESS_NAME, &r->comm_dict, NULL);
	colbuf__set_dict(&c, TC_FILENAME, &r->file_dict, NULL);
	colbuf__set_dict(&c, TC_STACK_TRACE, stacklists__dict(sl), stacklists__lists(sl));
	colbuf__set_dict(&c, TC_STACK_MODULES, stacklists__modules_dict(sl), stacklists__modules_lists(sl));
	colbuf__set_dict(&c, TC_WAKER_STACK, stacklists__dict(sl), stacklists__lists(sl));
	for (uint64_t i = 0; i < r->nrefs && !err; i++) {
		err = emit(r, &c, sl, &r->refs[i]);
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
	out->rows = r->nrefs;
	out->records = r->nrec;
	out->bad_records = r->bad;
}
