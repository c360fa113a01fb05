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

int ops_build__pid(struct builder *b, const struct ops *o, uint32_t pid, uint64_t lo, uint64_t hi)
{
	const struct model *m = b->m;
	int8_t last_role[OP_MAX] = { 0 };
	uint64_t last_row[OP_MAX] = { 0 };
	bool have_brk = false;
	int64_t brk_ret = 0;
	uint64_t brk_enter = 0;

	for (uint64_t r = lo; r < hi; r++) {
		unsigned int c = model__type(m, r);
		int op = o->code_op[c], role = o->code_role[c];
		struct op_rec rec;
		uint64_t e;

		if (role == ROLE_NONE)
			continue;
		if (role == ROLE_COMPLETE) {
			/* io_uring_complete: submit_ts present and non-zero, not after completion. */
			uint64_t submit = model__a(m, r, &b->a_cursor);

			uint64_t t = model__ts(m, r);

			if ((m->flags[r] & ROW_A) && submit && t >= submit) {
				rec = (struct op_rec){ .lat = t - submit, .start = t, .end = t, .pid = pid,
						       .rn = (uint32_t)r, .srn = (uint32_t)r };
				rec.bytes = (m->flags[r] & ROW_B) ? clamp0(model__b(m, r, &b->b_cursor)) : 0;
				if (add_rec(b, OP_IO_URING, &rec))
					return -ENOMEM;
			}
			continue;
		}
		if (role == ROLE_ENTER) {
			if (last_role[op] == ROLE_ENTER) {
				struct lost *l = vec__push(&b->lost[op]);

				if (!l)
					return -ENOMEM;
				*l = (struct lost){ pid, model__ts(m, last_row[op]), model__ts(m, r) };
			}
			if (op == OP_MMAP || op == OP_MUNMAP) {
				struct enter_tuple *t = vec__push(op == OP_MMAP ? &b->mmap_e : &b->munmap_e);

				if (!t)
					return -ENOMEM;
				*t = (struct enter_tuple){ model__ts(m, r), model__a(m, r, NULL), pid, (uint32_t)r,
							   (m->flags[r] & ROW_A) != 0 };
			}
			last_role[op] = ROLE_ENTER;
			last_row[op] = r;
			continue;
		}
		/* An exit pairs with the enter right before it, if that is what came before. */
		if (last_role[op] != ROLE_ENTER) {
			last_role[op] = ROLE_EXIT;
			continue;
		}
		last_role[op] = ROLE_EXIT;
		e = last_row[op];
		uint64_t te = model__ts(m, e), tr = model__ts(m, r);

		rec = (struct op_rec){ .lat = tr - te, .start = te, .end = tr, .pid = pid,
				       .rn = (uint32_t)r, .srn = (uint32_t)e };
		bool has_ret = m->flags[r] & ROW_A;
		int64_t ret = (int64_t)model__a(m, r, NULL);

		switch (op) {
		case OP_READ:
		case OP_WRITE:
			/* The latency row ignores ret; the IO table needs it. */
			rec.bytes = has_ret ? clamp0(model__a(m, r, NULL)) : 0;
			if (!has_ret && add_poison(b, op, pid, rec.start, rec.end, (uint32_t)r))
				return -ENOMEM;
			break;
		case OP_FSYNC:
		case OP_FDATASYNC:
			break;
		default:	/* another syscall: bytes are what its ret says, if it says any */
			rec.bytes = o->extra_bytes[op] && has_ret ? clamp0(model__a(m, r, NULL)) : 0;
			break;
		case OP_MMAP:
		case OP_MUNMAP:
			if (!has_ret) {
				if (add_poison(b, op, pid, rec.start, rec.end, (uint32_t)r))
					return -ENOMEM;
				continue;
			}
			if (op == OP_MMAP ? ret < 0 : ret != 0)
				continue;	/* failed call: paired, not counted */
			rec.bytes = (m->flags[e] & ROW_A) ? model__a(m, e, NULL) : 0;
			rec.delta = op == OP_MMAP ? (int64_t)rec.bytes : -(int64_t)rec.bytes;
			break;
		case OP_BRK:
			if (!has_ret) {
				if (add_poison(b, op, pid, rec.start, rec.end, (uint32_t)r))
					return -ENOMEM;
				continue;
			}
			if (ret <= 0)
				continue;
			if (!have_brk || ret == brk_ret) {
				/* The first break seen has nothing to compare with; an unchanged
				 * one is no change.  Either way it becomes the new reference. */
				have_brk = true;
				brk_ret = ret;
				brk_enter = te;
				continue;
			}
			rec.delta = ret - brk_ret;
			rec.bytes = rec.delta < 0 ? (uint64_t)0 - (uint64_t)rec.delta : (uint64_t)rec.delta;
			/* Counted only when the previous break's pair is in the window too. */
			rec.start = brk_enter;
			brk_ret = ret;
			brk_enter = te;
			break;
		}
		if (add_rec(b, op, &rec))
			return -ENOMEM;
	}
	return 0;
}
