#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/ops_build.h"
#include "trace/syscalls.h"

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

const char *ops__name(const struct ops *o, int op)
{
	return op < OP__COUNT ? op_names[op] : o->extra_name[op];
}

/* The code of type name `<n>_<suffix>` (n: syscall_NAME or probe_NAME), or -1. */
static int code_named(const struct model *m, const char *n, size_t len, const char *suffix)
{
	size_t sl = strlen(suffix);

	for (unsigned int c = 0; c < m->ntypes; c++) {
		const char *t = m->type_names[c];

		if (!strncmp(t, n, len) && !strcmp(t + len, suffix) && strlen(t) == len + sl)
			return (int)c;
	}
	return -1;
}

/* Whether type t can pair as an op, and how much of it its name leaves out: syscalls are
 * named without "syscall_", --probe functions (probe_FUNC_enter/exit) keep "probe_". */
static bool op_type(const char *t, size_t *skip)
{
	*skip = strncmp(t, "syscall_", 8) ? 0 : 8;
	return *skip || !strncmp(t, "probe_", 6);
}

/* Every enter type outside the 0.1 format's, with its exit type, becomes an operation
 * (in type-name order; past OP_MAX they are left out of by_operation). */
static int add_extra_ops(struct ops *o, const struct model *m)
{
	o->nops = OP__COUNT;
	for (unsigned int c = 0; c < m->ntypes && o->nops < OP_MAX; c++) {
		const char *t = m->type_names[c];
		size_t len = strlen(t), skip;
		int cx;

		/* The reference's own syscall types (io_uring_setup, ...) stay out, as there. */
		if (!op_type(t, &skip) || o->code_op[c] >= 0 || m->type_event[c] >= 0 || len <= skip + 6 ||
		    strcmp(t + len - 6, "_enter"))
			continue;
		cx = code_named(m, t, len - 6, "_exit");
		if (cx < 0 || o->code_op[cx] >= 0)
			continue;
		o->extra_name[o->nops] = strndup(t + skip, len - 6 - skip);
		if (!o->extra_name[o->nops])
			return -ENOMEM;
		o->extra_bytes[o->nops] = skip && syscall__ret_is_bytes(o->extra_name[o->nops]);
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
		      ops_build__pid(&b, o, m->pids[p], m->pid_off[p], m->pid_off[p + 1]);
	for (int i = 0; !err && i < o->nops; i++)
		err = ops_build__index(&o->op[i], m, &b, i);
	if (!err)
		err = ops_build__timeline(&o->mem, &b.mem, m->min_ts);
	if (!err)
		err = ops_build__enters(&o->mmap_enters, &b.mmap_e);
	if (!err)
		err = ops_build__enters(&o->munmap_enters, &b.munmap_e);
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
