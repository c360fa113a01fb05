#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "record/sbfilter.h"

struct sbfilter {
	struct hmap pids;	/* traced tgids (value unused) */
	unsigned char *held;	/* whole records, back to back */
	size_t len, cap;
	size_t old;		/* held[0, old) were held before the last settle */
	uint64_t dropped;
	bool all;		/* -a: every process is traced */
};

struct sbfilter *sbfilter__new(void)
{
	return calloc(1, sizeof(struct sbfilter));
}

void sbfilter__free(struct sbfilter *f)
{
	if (!f)
		return;
	hmap__free(&f->pids);
	free(f->held);
	free(f);
}

int sbfilter__add_pid(struct sbfilter *f, uint32_t tgid)
{
	return hmap__put(&f->pids, tgid, 1);
}

/* The process a record belongs to: MMAP, MMAP2 and COMM start with u32 pid, u32 tid. */
static bool record_pid(const struct perf_event_header *ev, uint32_t *pid)
{
	if (ev->type != PERF_RECORD_MMAP && ev->type != PERF_RECORD_MMAP2 && ev->type != PERF_RECORD_COMM)
		return false;
	if (ev->size < sizeof(*ev) + 8)
		return false;
	memcpy(pid, ev + 1, sizeof(*pid));
	return true;
}

static bool known(const struct sbfilter *f, const struct perf_event_header *ev)
{
	uint32_t pid, v;

	return f->all || !record_pid(ev, &pid) || hmap__get(&f->pids, pid, &v);
}

static int hold(struct sbfilter *f, const struct perf_event_header *ev)
{
	if (f->len + ev->size > f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 65536;
		unsigned char *p;

		while (cap < f->len + ev->size)
			cap *= 2;
		p = realloc(f->held, cap);
		if (!p)
			return -ENOMEM;
		f->held = p;
		f->cap = cap;
	}
	memcpy(f->held + f->len, ev, ev->size);
	f->len += ev->size;
	return 0;
}

void sbfilter__trace_all(struct sbfilter *f)
{
	f->all = true;
}

int sbfilter__record(struct sbfilter *f, const struct perf_event_header *ev, sbfilter_emit_fn emit,
		     void *ctx)
{
	if (known(f, ev))
		return emit(ctx, ev);
	return hold(f, ev);
}

int sbfilter__settle(struct sbfilter *f, bool final, sbfilter_emit_fn emit, void *ctx)
{
	size_t off = 0, keep = 0;
	int err = 0;

	while (off < f->len) {
		struct perf_event_header h;

		memcpy(&h, f->held + off, sizeof(h));
		if (known(f, (const struct perf_event_header *)(f->held + off))) {
			if (!err)
				err = emit(ctx, (const struct perf_event_header *)(f->held + off));
		} else if (final || off < f->old) {
			f->dropped++;
		} else {
			memmove(f->held + keep, f->held + off, h.size);
			keep += h.size;
		}
		off += h.size;
	}
	f->len = f->old = keep;
	return err;
}

uint64_t sbfilter__dropped(const struct sbfilter *f)
{
	return f->dropped;
}

int sbfilter__for_each(const struct sbfilter *f, int (*fn)(void *ctx, uint32_t tgid), void *ctx)
{
	int err;

	for (uint64_t i = 0; i < f->pids.cap; i++)
		if (f->pids.slots[i].used && (err = fn(ctx, (uint32_t)f->pids.slots[i].key)))
			return err;
	return 0;
}
