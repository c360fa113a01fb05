#include <errno.h>

#include "model/ops_build.h"

/* v into a 32-bit column at position i, or on the side. */
static int narrow32(uint32_t *slot, struct vec *side, uint64_t i, uint64_t v)
{
	struct pos_val *pv;

	*slot = v < UINT32_MAX ? (uint32_t)v : UINT32_MAX;
	if (v < UINT32_MAX)
		return 0;
	if (!(pv = vec__push(side)))
		return -ENOMEM;
	*pv = (struct pos_val){ v, (uint32_t)i };
	return 0;
}

static int add_rec(struct builder *b, enum op op, const struct op_rec *r)
{
	struct op_index *ix = &b->o->op[op];
	uint64_t i = ix->n++;

	if (i >= b->cap[op])
		return -EFAULT;	/* more records than exit rows: cannot happen */
	/* The index keeps rn for end and pid, and start only for brk: check they come back. */
	if (r->end != model__ts(b->m, r->rn) || r->srn > r->rn)
		return -EFAULT;
	if (narrow32(&ix->lat32[i], &b->lat_big[op], i, r->lat) ||
	    narrow32(&ix->bytes32[i], &b->bytes_big[op], i, r->bytes))
		return -ENOMEM;
	if (ix->start)
		ix->start[i] = r->start;
	else if (r->start != (ix->start_at_end ? r->end : r->end - r->lat))
		return -EFAULT;
	if (ix->delta)
		ix->delta[i] = r->delta;
	ix->rn[i] = r->rn;
	ix->srn_back[i] = r->rn - r->srn < SRN_FAR ? (uint8_t)(r->rn - r->srn) : SRN_FAR;
	if (ix->srn_back[i] == SRN_FAR) {
		struct pos_val *pv = vec__push(&b->srn_far[op]);

		if (!pv)
			return -ENOMEM;
		*pv = (struct pos_val){ r->srn, (uint32_t)i };
	}
	if (is_mem(op)) {
		struct mem_tuple *t = vec__push(&b->mem);

		if (!t)
			return -ENOMEM;
		*t = (struct mem_tuple){ r->start, r->end, r->delta, r->pid, r->rn, (uint8_t)op };
	}
	return 0;
}

static int add_poison(struct builder *b, enum op op, uint32_t pid, uint64_t start, uint64_t end,
		      uint32_t rn)
{
	struct poison *p = vec__push(&b->poison[op]);

	if (!p)
		return -ENOMEM;
	*p = (struct poison){ pid, rn, start, end };
	return 0;
}

static uint64_t clamp0(uint64_t v)
{
	return (int64_t)v < 0 ? 0 : v;
}

/* What one pid's walk over its rows keeps from row to row. */
struct pid_walk {
	uint32_t pid;
	int8_t last_role[OP_MAX];
	uint64_t last_row[OP_MAX];
	/* brk: the last successful break, which the next one is compared with */
	bool have_brk;
	int64_t brk_ret;
	uint64_t brk_enter;
};

/* io_uring_complete: submit_ts present and non-zero, not after completion. */
static int pair_complete(struct builder *b, const struct pid_walk *w, uint64_t r)
{
	const struct model *m = b->m;
	uint64_t submit = model__a(m, r, &b->a_cursor);
	uint64_t t = model__ts(m, r);
	struct op_rec rec;

	if (!(m->flags[r] & ROW_A) || !submit || t < submit)
		return 0;
	rec = (struct op_rec){ .lat = t - submit, .start = t, .end = t, .pid = w->pid,
			       .rn = (uint32_t)r, .srn = (uint32_t)r };
	rec.bytes = (m->flags[r] & ROW_B) ? clamp0(model__b(m, r, &b->b_cursor)) : 0;
	return add_rec(b, OP_IO_URING, &rec) ? -ENOMEM : 0;
}

static int pair_enter(struct builder *b, struct pid_walk *w, int op, uint64_t r)
{
	const struct model *m = b->m;

	if (w->last_role[op] == ROLE_ENTER) {
		struct lost *l = vec__push(&b->lost[op]);

		if (!l)
			return -ENOMEM;
		*l = (struct lost){ w->pid, model__ts(m, w->last_row[op]), model__ts(m, r) };
	}
	if (op == OP_MMAP || op == OP_MUNMAP) {
		struct enter_tuple *t = vec__push(op == OP_MMAP ? &b->mmap_e : &b->munmap_e);

		if (!t)
			return -ENOMEM;
		*t = (struct enter_tuple){ model__ts(m, r), model__a(m, r, NULL), w->pid, (uint32_t)r,
					   (m->flags[r] & ROW_A) != 0 };
	}
	w->last_role[op] = ROLE_ENTER;
	w->last_row[op] = r;
	return 0;
}

/* mmap, munmap: a failed call is paired, not counted; the size is the enter's. */
static int map_change(const struct model *m, int op, int64_t ret, uint64_t e, struct op_rec *rec)
{
	if (op == OP_MMAP ? ret < 0 : ret != 0)
		return 0;
	rec->bytes = (m->flags[e] & ROW_A) ? model__a(m, e, NULL) : 0;
	rec->delta = op == OP_MMAP ? (int64_t)rec->bytes : -(int64_t)rec->bytes;
	return 1;
}

/* brk: the change from the previous successful break of the pid. */
static int brk_change(struct pid_walk *w, int64_t ret, struct op_rec *rec)
{
	uint64_t te = rec->start;

	if (ret <= 0)
		return 0;
	if (!w->have_brk || ret == w->brk_ret) {
		/* The first break seen has nothing to compare with; an unchanged
		 * one is no change.  Either way the next one is compared with it. */
		w->have_brk = true;
		w->brk_ret = ret;
		w->brk_enter = te;
		return 0;
	}
	rec->delta = ret - w->brk_ret;
	rec->bytes = rec->delta < 0 ? (uint64_t)0 - (uint64_t)rec->delta : (uint64_t)rec->delta;
	/* Counted only when the previous break's pair is in the window too. */
	rec->start = w->brk_enter;
	w->brk_ret = ret;
	w->brk_enter = te;
	return 1;
}

/* The bytes (and memory change) of the pair (e, r) into rec: 1 when it counts, 0 when
 * not, or -ENOMEM. */
static int exit_values(struct builder *b, const struct ops *o, struct pid_walk *w, int op,
		       uint64_t r, uint64_t e, struct op_rec *rec)
{
	const struct model *m = b->m;
	bool has_ret = m->flags[r] & ROW_A;
	int64_t ret = (int64_t)model__a(m, r, NULL);

	switch (op) {
	case OP_READ:
	case OP_WRITE:
		/* The latency row ignores ret; the IO table needs it. */
		rec->bytes = has_ret ? clamp0(model__a(m, r, NULL)) : 0;
		if (!has_ret && add_poison(b, op, w->pid, rec->start, rec->end, (uint32_t)r))
			return -ENOMEM;
		return 1;
	case OP_FSYNC:
	case OP_FDATASYNC:
		return 1;
	default:	/* another syscall: bytes are what its ret says, if it says any */
		rec->bytes = o->extra_bytes[op] && has_ret ? clamp0(model__a(m, r, NULL)) : 0;
		return 1;
	case OP_MMAP:
	case OP_MUNMAP:
	case OP_BRK:
		if (!has_ret)
			return add_poison(b, op, w->pid, rec->start, rec->end, (uint32_t)r) ? -ENOMEM : 0;
		return op == OP_BRK ? brk_change(w, ret, rec) : map_change(m, op, ret, e, rec);
	}
}

/* An exit pairs with the enter right before it, if that is what came before. */
static int pair_exit(struct builder *b, const struct ops *o, struct pid_walk *w, int op, uint64_t r)
{
	const struct model *m = b->m;
	uint64_t e = w->last_row[op], te, tr;
	struct op_rec rec;
	int counts;

	if (w->last_role[op] != ROLE_ENTER) {
		w->last_role[op] = ROLE_EXIT;
		return 0;
	}
	w->last_role[op] = ROLE_EXIT;
	te = model__ts(m, e);
	tr = model__ts(m, r);
	rec = (struct op_rec){ .lat = tr - te, .start = te, .end = tr, .pid = w->pid,
			       .rn = (uint32_t)r, .srn = (uint32_t)e };
	counts = exit_values(b, o, w, op, r, e, &rec);
	if (counts <= 0)
		return counts;
	return add_rec(b, op, &rec) ? -ENOMEM : 0;
}

int ops_build__pid(struct builder *b, const struct ops *o, uint32_t pid, uint64_t lo, uint64_t hi)
{
	struct pid_walk w = { .pid = pid };
	int err = 0;

	for (uint64_t r = lo; !err && r < hi; r++) {
		unsigned int c = model__type(b->m, r);

		switch (o->code_role[c]) {
		case ROLE_COMPLETE:
			err = pair_complete(b, &w, r);
			break;
		case ROLE_ENTER:
			err = pair_enter(b, &w, o->code_op[c], r);
			break;
		case ROLE_EXIT:
			err = pair_exit(b, o, &w, o->code_op[c], r);
			break;
		}
	}
	return err;
}
