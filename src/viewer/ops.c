#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/bigmem.h"
#include "common/sort.h"
#include "trace/syscalls.h"
#include "viewer/columns.h"
#include "viewer/ops.h"

const char *const op_names[OP__COUNT] = {
	[OP_READ] = "read", [OP_WRITE] = "write", [OP_FSYNC] = "fsync",
	[OP_FDATASYNC] = "fdatasync", [OP_IO_URING] = "io_uring", [OP_MMAP] = "mmap",
	[OP_MUNMAP] = "munmap", [OP_BRK] = "brk",
};

static const struct {
	enum op op;
	int enter, exit;
} op_events[] = {
	{ OP_READ, EV_READ_ENTER, EV_READ_EXIT },
	{ OP_WRITE, EV_WRITE_ENTER, EV_WRITE_EXIT },
	{ OP_FSYNC, EV_FSYNC_ENTER, EV_FSYNC_EXIT },
	{ OP_FDATASYNC, EV_FDATASYNC_ENTER, EV_FDATASYNC_EXIT },
	{ OP_MMAP, EV_MMAP_ENTER, EV_MMAP_EXIT },
	{ OP_MUNMAP, EV_MUNMAP_ENTER, EV_MUNMAP_EXIT },
	{ OP_BRK, EV_BRK_ENTER, EV_BRK_EXIT },
};

/* A growable list of records or of small tuples. */
struct vec {
	void *p;
	uint64_t n, cap;
	size_t elem;
};

static void *vec__push(struct vec *v)
{
	if (v->n == v->cap) {
		uint64_t cap = v->cap ? v->cap * 2 : 256;
		void *p = bigmem__grow(v->p, v->n * v->elem, cap * v->elem);

		if (!p)
			return NULL;
		v->p = p;
		v->cap = cap;
	}
	return (char *)v->p + v->elem * v->n++;
}

struct lost { uint32_t pid; uint64_t t1, t2; };
struct poison { uint32_t pid, rn; uint64_t start, end; };

/* Records go straight into their op's index columns, in row order, with room for one per
 * exit row (an upper bound: untouched pages of the columns are never resident); the
 * columns are then permuted into latency order one at a time (finish_index).  No record
 * is copied through an intermediate array, so pairing costs little more than the index. */
struct builder {
	const struct model *m;
	struct ops *o;
	uint64_t cap[OP_MAX];
	uint64_t b_cursor, a_cursor;	/* model__b, model__a: io_uring completions come in row order */
	struct vec lost[OP_MAX], poison[OP_MAX], mem, mmap_e, munmap_e;
	/* Per op, what does not fit the narrow columns, by row-order position. */
	struct vec lat_big[OP_MAX], bytes_big[OP_MAX], srn_far[OP_MAX];
};

struct pos_val { uint64_t val; uint32_t pos; };

/* The value side (positions ascending) keeps for row-order position i, which it has. */
static uint64_t side_val(const struct vec *side, uint64_t i)
{
	const struct pos_val *pv = side->p;
	uint64_t lo = 0, hi = side->n;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (pv[mid].pos < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return pv[lo].val;
}

/* Record i's value of a narrowed column: in it, or (UINT32_MAX there) on the side. */
static uint64_t wide_at(const uint32_t *narrow, const struct vec *side, uint64_t i)
{
	return narrow[i] != UINT32_MAX ? narrow[i] : side_val(side, i);
}

static bool is_mem(int op)
{
	return op == OP_MMAP || op == OP_MUNMAP || op == OP_BRK;
}

struct enter_tuple { uint64_t ts, count; uint32_t pid, rn; bool has; };
struct mem_tuple { uint64_t start, end; int64_t delta; uint32_t pid, rn; uint8_t op; };

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

/* One pid's rows: pair, and record what the reference would count over the whole trace. */
static int build_pid(struct builder *b, const struct ops *o, uint32_t pid, uint64_t lo, uint64_t hi)
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

#define ALLOC(p, n) ((p) = bigmem__alloc(((n) ? (n) : 1) * sizeof(*(p))))

/* col[i] = col[perm[i]], through a fresh array: one column's worth of extra memory. */
#define GATHER(col, perm, n)                                                           \
	do {                                                                           \
		__typeof__(col) g_;                                                    \
		if (!ALLOC(g_, n))                                                     \
			goto cleanup;                                                  \
		for (uint64_t i_ = 0; i_ < (n); i_++)                                  \
			g_[i_] = (col)[(perm)[i_]];                                    \
		free(col);                                                             \
		(col) = g_;                                                            \
	} while (0)

/* A side part by row-order position, re-keyed by latency position (perm: latency position
 * -> row-order position): the entries of the positions whose narrow value (already in
 * latency order) is `far`. */
#define RESIDE(narrow, far, side, n, cnt, pos_out, val_out, vtype)                         \
	do {                                                                               \
		uint64_t k_ = 0;                                                           \
		(cnt) = (side)->n;                                                         \
		if (!ALLOC(pos_out, cnt) || !ALLOC(val_out, cnt))                          \
			goto cleanup;                                                      \
		for (uint64_t i_ = 0; i_ < (n) && k_ < (cnt); i_++) {                      \
			if ((narrow)[i_] != (far))                                         \
				continue;                                                  \
			(pos_out)[k_] = (uint32_t)i_;                                      \
			(val_out)[k_++] = (vtype)side_val(side, perm[i_]);                 \
		}                                                                          \
	} while (0)

/* The records, in row order in ix's columns, become the latency order; the size and row
 * orders are permutations of it. */
static int finish_index(struct op_index *ix, const struct model *m, struct builder *b, int op)
{
	struct vec *lost = &b->lost[op], *poison = &b->poison[op];
	uint64_t n = ix->n, maxlat = 0, maxb = 0, *key = NULL;
	uint32_t *perm = NULL;
	int err = -ENOMEM;

	if (!ALLOC(key, n) || !ALLOC(perm, n) || !ALLOC(ix->g_idx, n) ||
	    !(ix->g_off = calloc(m->npids + 1, sizeof(*ix->g_off))))
		goto cleanup;
	/* Row order: records were made pid by pid (pids ascending), each pid's in time order. */
	for (uint64_t i = 0, p = 0; i < n; i++) {
		while (ix->rn[i] >= m->pid_off[p + 1])
			p++;
		ix->g_off[p + 1]++;
	}
	for (uint32_t p = 0; p < m->npids; p++)
		ix->g_off[p + 1] += ix->g_off[p];
	/* Records come in row order, so a stable sort by latency gives (lat, rn). */
	for (uint64_t i = 0; i < n; i++) {
		key[i] = wide_at(ix->lat32, &b->lat_big[op], i);
		maxlat = key[i] > maxlat ? key[i] : maxlat;
		perm[i] = (uint32_t)i;
	}
	if (sort__radix_perm(key, perm, n, sort__bits(maxlat)))
		goto cleanup;
	for (uint64_t i = 0; i < n; i++)
		ix->g_idx[perm[i]] = (uint32_t)i;
	/* Latencies ascend: the long ones are the last, lat_big in order. */
	while (ix->nlat32 < n && key[perm[ix->nlat32]] < UINT32_MAX)
		ix->nlat32++;
	if (!ALLOC(ix->lat_big, n - ix->nlat32))
		goto cleanup;
	for (uint64_t i = ix->nlat32; i < n; i++)
		ix->lat_big[i - ix->nlat32] = key[perm[i]];
	GATHER(ix->lat32, perm, n);
	GATHER(ix->bytes32, perm, n);
	RESIDE(ix->bytes32, UINT32_MAX, &b->bytes_big[op], n, ix->nbytes_big, ix->bytes_big_pos,
	       ix->bytes_big, uint64_t);
	GATHER(ix->srn_back, perm, n);
	RESIDE(ix->srn_back, SRN_FAR, &b->srn_far[op], n, ix->nsrn_far, ix->srn_far_pos,
	       ix->srn_far, uint32_t);
	if (ix->start)
		GATHER(ix->start, perm, n);
	if (ix->delta)
		GATHER(ix->delta, perm, n);
	GATHER(ix->rn, perm, n);
	for (uint64_t i = 0; i < n; i++) {
		key[i] = op_index__bytes(ix, i);
		maxb = key[i] > maxb ? key[i] : maxb;
		perm[i] = (uint32_t)i;
	}
	if (sort__radix_perm(key, perm, n, sort__bits(maxb)))
		goto cleanup;
	free(key);
	key = NULL;
	if (!ALLOC(ix->s_pos, n))
		goto cleanup;
	for (uint64_t i = 0; i < n; i++)
		ix->s_pos[perm[i]] = (uint32_t)i;
	ix->s_lat = perm;	/* size position → latency position */
	perm = NULL;
	ix->nlost = lost->n;
	if (!ALLOC(ix->lost_pid, lost->n) || !ALLOC(ix->lost_t1, lost->n) || !ALLOC(ix->lost_t2, lost->n))
		goto cleanup;
	for (uint64_t i = 0; i < lost->n; i++) {
		const struct lost *l = (const struct lost *)lost->p + i;

		ix->lost_pid[i] = l->pid;
		ix->lost_t1[i] = l->t1;
		ix->lost_t2[i] = l->t2;
	}
	ix->npoison = poison->n;
	if (!ALLOC(ix->poison_pid, poison->n) || !ALLOC(ix->poison_rn, poison->n) ||
	    !ALLOC(ix->poison_start, poison->n) || !ALLOC(ix->poison_end, poison->n))
		goto cleanup;
	for (uint64_t i = 0; i < poison->n; i++) {
		const struct poison *p = (const struct poison *)poison->p + i;

		ix->poison_pid[i] = p->pid;
		ix->poison_rn[i] = p->rn;
		ix->poison_start[i] = p->start;
		ix->poison_end[i] = p->end;
	}
	err = 0;
cleanup:
	free(key);
	free(perm);
	return err;
}

static int finish_timeline(struct mem_timeline *t, struct vec *v, uint64_t min_ts)
{
	const struct mem_tuple *x = v->p;
	uint64_t n = v->n, *key = NULL, maxk = 0;
	uint32_t *perm = NULL;
	int err = -ENOMEM;

	t->n = n;
	if (!ALLOC(key, n) || !ALLOC(perm, n) || !ALLOC(t->start, n) || !ALLOC(t->end, n) ||
	    !ALLOC(t->delta, n) || !ALLOC(t->pid, n) || !ALLOC(t->rn, n) || !ALLOC(t->op, n))
		goto cleanup;
	/* Pushed in row order; the reference then sorts stably by time: (end, rn). */
	for (uint64_t i = 0; i < n; i++) {
		key[i] = x[i].end - min_ts;
		maxk = key[i] > maxk ? key[i] : maxk;
		perm[i] = (uint32_t)i;
	}
	if (sort__radix_perm(key, perm, n, sort__bits(maxk)))
		goto cleanup;
	for (uint64_t i = 0; i < n; i++) {
		const struct mem_tuple *y = &x[perm[i]];

		t->start[i] = y->start;
		t->end[i] = y->end;
		t->delta[i] = y->delta;
		t->pid[i] = y->pid;
		t->rn[i] = y->rn;
		t->op[i] = y->op;
	}
	err = 0;
cleanup:
	free(key);
	free(perm);
	return err;
}

static int finish_enters(struct enter_rows *e, struct vec *v)
{
	const struct enter_tuple *x = v->p;

	e->n = v->n;
	if (!ALLOC(e->ts, v->n) || !ALLOC(e->count, v->n) || !ALLOC(e->pid, v->n) ||
	    !ALLOC(e->rn, v->n) || !ALLOC(e->has_count, v->n))
		return -ENOMEM;
	for (uint64_t i = 0; i < v->n; i++) {
		e->ts[i] = x[i].ts;
		e->count[i] = x[i].count;
		e->pid[i] = x[i].pid;
		e->rn[i] = x[i].rn;
		e->has_count[i] = x[i].has;
	}
	return 0;
}

const char *ops__name(const struct ops *o, int op)
{
	return op < OP__COUNT ? op_names[op] : o->extra_name[op];
}

/* The code of type name `syscall_<n>_<suffix>`, or -1. */
static int code_named(const struct model *m, const char *n, size_t len, const char *suffix)
{
	size_t sl = strlen(suffix);

	for (unsigned int c = 0; c < m->ntypes; c++) {
		const char *t = m->type_names[c];

		if (!strncmp(t, "syscall_", 8) && !strncmp(t + 8, n, len) && !strcmp(t + 8 + len, suffix) &&
		    strlen(t) == 8 + len + sl)
			return (int)c;
	}
	return -1;
}

/* Every enter type the reference does not know, with its exit type, becomes
 * an operation (in type-name order; past OP_MAX they are left out of by_operation). */
static int add_extra_ops(struct ops *o, const struct model *m)
{
	o->nops = OP__COUNT;
	for (unsigned int c = 0; c < m->ntypes && o->nops < OP_MAX; c++) {
		const char *t = m->type_names[c];
		size_t len = strlen(t);
		int cx;

		/* The reference's own syscall types (io_uring_setup, ...) stay out, as there. */
		if (o->code_op[c] >= 0 || m->type_event[c] >= 0 || len <= 14 || strncmp(t, "syscall_", 8) ||
		    strcmp(t + len - 6, "_enter"))
			continue;
		cx = code_named(m, t + 8, len - 14, "_exit");
		if (cx < 0 || o->code_op[cx] >= 0)
			continue;
		o->extra_name[o->nops] = strndup(t + 8, len - 14);
		if (!o->extra_name[o->nops])
			return -ENOMEM;
		o->extra_bytes[o->nops] = syscall__ret_is_bytes(o->extra_name[o->nops]);
		o->code_op[c] = o->code_op[cx] = (int8_t)o->nops;
		o->code_role[c] = ROLE_ENTER;
		o->code_role[cx] = ROLE_EXIT;
		o->nops++;
	}
	return 0;
}

/* Room for one record per exit (or completion) row of each op, and for the memory ops'
 * timeline. */
static int alloc_columns(struct builder *b, const struct model *m)
{
	struct ops *o = b->o;
	uint64_t stride = m->npids + 1, nmem = 0;

	for (unsigned int c = 0; c < m->ntypes; c++)
		if (o->code_op[c] >= 0 && (o->code_role[c] == ROLE_EXIT || o->code_role[c] == ROLE_COMPLETE))
			b->cap[o->code_op[c]] += m->type_pid_off[c * stride + m->npids] -
						 m->type_pid_off[c * stride];
	for (int i = 0; i < o->nops; i++) {
		struct op_index *ix = &o->op[i];
		uint64_t n = b->cap[i];

		ix->start_at_end = i == OP_IO_URING;
		if (!ALLOC(ix->lat32, n) || !ALLOC(ix->bytes32, n) || (i == OP_BRK && !ALLOC(ix->start, n)) ||
		    (is_mem(i) && !ALLOC(ix->delta, n)) || !ALLOC(ix->rn, n) || !ALLOC(ix->srn_back, n))
			return -ENOMEM;
		if (is_mem(i))
			nmem += n;
	}
	/* The timeline's tuples: one per memory record at most, so it never grows. */
	b->mem.p = bigmem__alloc((nmem ? nmem : 1) * b->mem.elem);
	b->mem.cap = nmem ? nmem : 1;
	return b->mem.p ? 0 : -ENOMEM;
}

int ops__build(struct ops *o, const struct model *m, const volatile bool *cancel)
{
	struct builder b = { .m = m, .o = o };
	int err = 0;

	memset(o, 0, sizeof(*o));
	for (int i = 0; i < OP_MAX; i++) {
		b.lost[i].elem = sizeof(struct lost);
		b.poison[i].elem = sizeof(struct poison);
		b.lat_big[i].elem = b.bytes_big[i].elem = b.srn_far[i].elem = sizeof(struct pos_val);
	}
	b.mem.elem = sizeof(struct mem_tuple);
	b.mmap_e.elem = b.munmap_e.elem = sizeof(struct enter_tuple);
	for (unsigned int c = 0; c < TRACE_MAX_TYPES; c++)
		o->code_op[c] = -1;
	for (size_t i = 0; i < sizeof(op_events) / sizeof(op_events[0]); i++) {
		int ce = m->code_of[op_events[i].enter], cx = m->code_of[op_events[i].exit];

		if (ce >= 0) {
			o->code_op[ce] = (int8_t)op_events[i].op;
			o->code_role[ce] = ROLE_ENTER;
		}
		if (cx >= 0) {
			o->code_op[cx] = (int8_t)op_events[i].op;
			o->code_role[cx] = ROLE_EXIT;
		}
	}
	if (m->code_of[EV_IO_URING_COMPLETE] >= 0) {
		o->code_op[m->code_of[EV_IO_URING_COMPLETE]] = OP_IO_URING;
		o->code_role[m->code_of[EV_IO_URING_COMPLETE]] = ROLE_COMPLETE;
	}
	err = add_extra_ops(o, m);
	if (!err)
		err = alloc_columns(&b, m);
	for (uint32_t p = 0; !err && p < m->npids; p++)
		err = cancel && *cancel ? -ECANCELED :
		      build_pid(&b, o, m->pids[p], m->pid_off[p], m->pid_off[p + 1]);
	for (int i = 0; !err && i < o->nops; i++)
		err = finish_index(&o->op[i], m, &b, i);
	if (!err)
		err = finish_timeline(&o->mem, &b.mem, m->min_ts);
	if (!err)
		err = finish_enters(&o->mmap_enters, &b.mmap_e);
	if (!err)
		err = finish_enters(&o->munmap_enters, &b.munmap_e);
	for (int i = 0; i < OP_MAX; i++) {
		free(b.lost[i].p);
		free(b.poison[i].p);
		free(b.lat_big[i].p);
		free(b.bytes_big[i].p);
		free(b.srn_far[i].p);
	}
	free(b.mem.p);
	free(b.mmap_e.p);
	free(b.munmap_e.p);
	if (err)
		ops__free(o);
	return err;
}

void ops__free(struct ops *o)
{
	for (int i = 0; i < OP_MAX; i++) {
		struct op_index *x = &o->op[i];
		void *ptrs[] = { x->lat32, x->lat_big, x->bytes32, x->bytes_big_pos,
				 x->bytes_big, x->start, x->delta, x->rn, x->srn_back,
				 x->srn_far_pos, x->srn_far,
				 x->s_lat, x->s_pos, x->g_idx, x->g_off, x->lost_pid,
				 x->lost_t1, x->lost_t2, x->poison_pid, x->poison_rn,
				 x->poison_start, x->poison_end };

		for (size_t k = 0; k < sizeof(ptrs) / sizeof(ptrs[0]); k++)
			free(ptrs[k]);
		free(o->extra_name[i]);
	}
	free(o->mem.start);
	free(o->mem.end);
	free(o->mem.delta);
	free(o->mem.pid);
	free(o->mem.rn);
	free(o->mem.op);
	struct enter_rows *es[] = { &o->mmap_enters, &o->munmap_enters };
	for (int i = 0; i < 2; i++) {
		free(es[i]->ts);
		free(es[i]->count);
		free(es[i]->pid);
		free(es[i]->rn);
		free(es[i]->has_count);
	}
	memset(o, 0, sizeof(*o));
}
