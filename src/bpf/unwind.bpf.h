/* SPDX-License-Identifier: GPL-2.0 */
/* The in-kernel user-stack walk (bpf/unwind.h): frame by frame through the tables user
 * space loaded for the process, up to where a frame has no rule the walk can follow.
 * Its frames go into the record; the stack copy then starts at that frame (at its
 * registers), so finalize unwinds only what the walk could not.  On a process whose
 * objects all have tables the copy is empty: the cost no longer grows with the stack's
 * size in bytes, only with its frames (two binary searches and one or two 8-byte reads
 * each).  Included by record.bpf.h. */
#ifndef PROBEX_BPF_UNWIND_BPF_H
#define PROBEX_BPF_UNWIND_BPF_H

#include "bpf/unwind.h"

/* Set by user space when it loads tables (--call-graph dwarf/auto, this object only). */
const volatile bool unw_walk = false;

/* Sized by user space before load; mmapped to write rows and rules in place. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_row);
} unw_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_rule);
} unw_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_proc);
} unw_procs SEC(".maps");

/* Walks by how they ended (enum unw_end), then frames walked in all. */
struct unw_counts {
	__u64 v[UNW_END__COUNT + 1];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_counts);
} unw_stats SEC(".maps");

/* Where the walk stands: the frame's registers and the last rule looked up. */
struct unw_regs {
	__u64 pc, sp, bp;
	__u64 last_look;	/* a recursion's frames share their rule: looked up once */
	struct unw_rule last;
	__u8 bp_ok;
};

struct unw_walk {
	__u64 *buf;
	struct unw_regs r;
	__u32 n;
	__u8 end;		/* enum unw_end once stopped */
	bool stopped;
};

static __always_inline void unw_count(__u32 idx, __u64 n)
{
	__u32 zero = 0;
	struct unw_counts *c = bpf_map_lookup_elem(&unw_stats, &zero);

	/* The mask bounds the index for the verifier (the compiler drops it after a test). */
	_Static_assert(UNW_END__COUNT + 1 == 8, "unw_counts is 8 slots");
	barrier_var(idx);
	if (c)
		__sync_fetch_and_add(&c->v[idx & 7], n);
}

/* The mapping holding pc: a binary search over the sorted ones, in a bpf_loop (as the
 * rows' search below). */
struct unw_msearch {
	struct unw_proc *p;
	__u64 pc;
	__u32 lo, hi;
};

static long unw_msearch_step(__u64 i, void *data)
{
	struct unw_msearch *q = data;
	__u32 mid;

	if (q->lo >= q->hi)
		return 1;
	mid = q->lo + (q->hi - q->lo) / 2;
	if (mid >= UNW_PROC_MAPS)
		return 1;
	if (q->p->m[mid].start <= q->pc)
		q->lo = mid + 1;
	else
		q->hi = mid;
	return 0;
}

static __always_inline struct unw_map *unw_map_find(struct unw_proc *p, __u64 pc)
{
	struct unw_msearch q = { .p = p, .pc = pc, .hi = p->n };
	__u32 i;

	if (q.hi > UNW_PROC_MAPS)
		q.hi = UNW_PROC_MAPS;
	bpf_loop(8, unw_msearch_step, &q, 0);
	if (!q.lo)
		return NULL;
	i = q.lo - 1;
	barrier_var(i);	/* the test below must bound i itself, as the verifier sees it */
	if (i >= UNW_PROC_MAPS || pc >= p->m[i].end)
		return NULL;
	return &p->m[i];
}

/* One step of the binary search for the last row at or below rel, in a bpf_loop of its
 * own: unrolled inside the walk's step, its branches multiply the states the verifier
 * explores past its limit. */
struct unw_search {
	__u32 lo, hi, rel;
	bool failed;
};

static long unw_search_step(__u64 i, void *data)
{
	struct unw_search *q = data;
	__u32 mid;
	struct unw_row *row;

	if (q->lo >= q->hi)
		return 1;
	mid = q->lo + (q->hi - q->lo) / 2;
	row = bpf_map_lookup_elem(&unw_rows, &mid);
	if (!row) {
		q->failed = true;
		return 1;
	}
	if (row->pc <= q->rel)
		q->lo = mid + 1;
	else
		q->hi = mid;
	return 0;
}

/* The rule at link-time address rel of mapping m: the last row at or below it. */
static __always_inline bool unw_rule_find(const struct unw_map *m, __u32 rel, struct unw_rule *out)
{
	struct unw_search q = { .lo = m->first, .hi = m->first + m->count, .rel = rel };
	struct unw_row *row;
	struct unw_rule *r;
	__u32 idx;

	bpf_loop(UNW_BSEARCH_STEPS, unw_search_step, &q, 0);
	if (q.failed || q.lo < q.hi || q.lo == m->first)
		return false;
	idx = q.lo - 1;
	row = bpf_map_lookup_elem(&unw_rows, &idx);
	if (!row)
		return false;
	idx = row->rule;
	r = bpf_map_lookup_elem(&unw_rules, &idx);
	if (!r)
		return false;
	*out = *r;
	return true;
}

/* The rule for pc `look` of the current process into *out: 0, or the enum unw_end that
 * stops the walk.  A global function: the verifier checks its two searches once per
 * program, not again on each path through the walk's step. */
__noinline int unw_rule_at(__u64 look, struct unw_rule *out)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct unw_proc *p = bpf_map_lookup_elem(&unw_procs, &tgid);
	struct unw_map *m;

	if (!out || !p)
		return UNW_END_NO_PROC;
	m = unw_map_find(p, look);
	if (!m || look - m->bias > 0xffffffffull)
		return UNW_END_NO_MAP;
	if (!unw_rule_find(m, (__u32)(look - m->bias), out))
		return UNW_END_NO_RULE;
	return 0;
}

static __always_inline long unw_stop(struct unw_walk *w, __u8 end)
{
	w->end = end;
	w->stopped = true;
	return 1;
}

#define UNW_GO (-1)

/* One frame up: the caller's pc, sp and rbp from this frame's rule.  A return address
 * is looked up inside its call (pc - 1); the leaf's pc as it is.  UNW_GO when r moved
 * to the caller, UNW_END_WHOLE when this frame is the outermost, else the enum unw_end
 * that stops the walk before this frame.  A global function, as unw_rule_at. */
__noinline int unw_frame(struct unw_regs *r, __u64 i)
{
	__u64 look, cfa, ra, bp;
	int end;

	if (!r)
		return UNW_END_NO_RULE;
	look = i ? r->pc - 1 : r->pc;
	if (look != r->last_look || !i) {
		end = unw_rule_at(look, &r->last);
		if (end) {
			r->last_look = 0;
			return end == UNW_END_NO_RULE ? UNW_END_NO_RULE : UNW_END_NO_MAP;
		}
		r->last_look = look;
	}
	if (r->last.kind == UNW_END)
		return UNW_END_WHOLE;
	if (r->last.kind == UNW_CFA_SP)
		cfa = r->sp + (__s64)r->last.cfa_off;
	else if (r->last.kind == UNW_CFA_BP && r->bp_ok)
		cfa = r->bp + (__s64)r->last.cfa_off;
	else
		return UNW_END_NO_RULE;
	if (cfa <= r->sp)
		return UNW_END_LOOP;
	if (bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa - 8)))
		return UNW_END_BAD_READ;
	if (r->last.bp == UNW_BP_AT) {
		if (bpf_probe_read_user(&bp, sizeof(bp), (void *)(cfa + (__s64)r->last.bp_off)))
			return UNW_END_BAD_READ;
		r->bp = bp;
	} else if (r->last.bp == UNW_BP_UNDEF) {
		r->bp_ok = 0;
	}
	if (!ra)
		return UNW_END_WHOLE;
	r->pc = ra;
	r->sp = cfa;
	return UNW_GO;
}

/* One bpf_loop step: frame i goes to buf[i] (the loop's index, not a count kept in w:
 * a value the verifier must track exactly would make it walk the loop frame by frame). */
static long unw_step(__u64 i, void *data)
{
	struct unw_walk *w = data;
	__u64 pc = w->r.pc;
	int end;

	if (i >= UNW_MAX_FRAMES)
		return unw_stop(w, UNW_END_CAP);
	end = unw_frame(&w->r, i);
	if (end != UNW_GO && end != UNW_END_WHOLE)
		return unw_stop(w, end);
	w->buf[i] = pc;
	w->n = i + 1;
	if (end == UNW_END_WHOLE)
		return unw_stop(w, UNW_END_WHOLE);
	return 0;
}

/* An exec replaces every mapping of the process: its old tables must not serve a sample
 * of the new image before user space has read the exec (it deletes them too, and then
 * loads the new image's). */
static __always_inline void unw_exec(__u32 tgid)
{
	if (unw_walk)
		bpf_map_delete_elem(&unw_procs, &tgid);
}

/* A forked process has its parent's mappings: walked at once, not only after user
 * space has read the fork (an exec that follows drops them: unw_exec). */
static __always_inline void unw_fork(__u32 parent, __u32 child)
{
	struct unw_proc *p;

	if (!unw_walk)
		return;
	p = bpf_map_lookup_elem(&unw_procs, &parent);
	if (p)
		bpf_map_update_elem(&unw_procs, &child, p, BPF_NOEXIST);
}

/* A stack-copy record's struct rec_ustack and the room for walked frames after it. */
struct unw_rec {
	struct rec_ustack u;
	__u64 frames[UNW_MAX_FRAMES];
};

/* Walk the current task's user stack from r->u.regs (leaf first) into r->frames; sets
 * r->u.nwalk and wflags (REC_W_*), and leaves in r->u.regs the frame where the walk
 * stopped (the copy's start): pc, sp, rbp, the other registers zero once a frame was
 * walked (the leaf's values no longer hold).  A global function: the verifier checks it
 * once per program, not once per place a program sends a stack (~9000 instructions
 * each). */
__noinline int unw_walk_rec(struct unw_rec *r)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct unw_walk w = { .buf = r ? r->frames : NULL, .r.bp_ok = 1 };
	bool whole, cap;

	if (!r)
		return 0;
	r->u.nwalk = 0;
	r->u.wflags = 0;
	if (!unw_walk)
		return 0;
	if (!bpf_map_lookup_elem(&unw_procs, &tgid)) {
		unw_count(UNW_END_NO_PROC, 1);
		return 0;
	}
	w.r.pc = r->u.regs[UREG_IP];
	w.r.sp = r->u.regs[UREG_SP];
	w.r.bp = r->u.regs[UREG_BP];
	bpf_loop(UNW_MAX_FRAMES + 1, unw_step, &w, 0);
	unw_count(w.stopped ? w.end : UNW_END_CAP, 1);
	unw_count(UNW_END__COUNT, w.n);
	whole = w.stopped && w.end == UNW_END_WHOLE;
	cap = !w.stopped || w.end == UNW_END_CAP;
	r->u.nwalk = w.n <= UNW_MAX_FRAMES ? w.n : UNW_MAX_FRAMES;
	r->u.wflags = (whole ? REC_W_WHOLE : 0) | (cap ? REC_W_CAP : 0);
	if (!w.n || whole || cap)
		return r->u.nwalk;
	for (int i = 0; i < UREG__COUNT; i++)
		r->u.regs[i] = 0;
	r->u.regs[UREG_IP] = w.r.pc;
	r->u.regs[UREG_SP] = w.r.sp;
	r->u.regs[UREG_BP] = w.r.bp_ok ? w.r.bp : 0;
	return r->u.nwalk;
}

#endif
