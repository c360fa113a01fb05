/* SPDX-License-Identifier: GPL-2.0 */
/* CPython frames: for a task of a process user space found to run CPython (pyprocs), the
 * chain of Python frames its thread state points to, appended to a stack record as a
 * rec_pystack section.  Only addresses are recorded (code object, instruction offset);
 * user space names them while the process lives.
 *
 * The thread state is found by walking the interpreter's list for the one whose
 * thread_id is this thread's pthread_self (x86-64 glibc: the FS base), then cached per
 * thread and checked again on each use: the GIL holder (_PyRuntime's tstate_current) is
 * another thread whenever this one waits in a syscall. */
#ifndef PROBEX_BPF_PYTHON_BPF_H
#define PROBEX_BPF_PYTHON_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct py_proc);
} pyprocs SEC(".maps");

/* tid -> PyThreadState address, and when a thread without one was last searched. */
struct py_thread {
	__u64 tstate;
	__u64 searched;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct py_thread);
} pythreads SEC(".maps");

/* A thread with no thread state (a native thread, or one before Python starts it) is
 * searched again at most this often. */
#define PY_RESEARCH_NS 50000000ull

/* One frame read at once, and the section built before it is copied into the record;
 * per nesting level, as the scratch records are. */
struct py_buf {
	__u8 frame[PY_FRAME_SPAN + 8];
	__u8 sec[PY_SECTION_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCRATCH_DEPTH);
	__type(key, __u32);
	__type(value, struct py_buf);
} pybufs SEC(".maps");

/* 0 when unreadable: a failed read zeroes its destination, so no branch (each one
 * doubled the paths the verifier walked after it). */
static __always_inline __u64 py_read64(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (void *)addr);
	return v;
}

struct py_tsearch {
	const struct py_layout *l;
	__u64 ts, want, found;
};

static long py_tsearch_step(__u64 i, void *data)
{
	struct py_tsearch *s = data;
	const struct py_layout *l = s->l;

	if (s->ts < 0x1000)
		return 1;
	if (py_read64(s->ts + l->ts_thread_id) == s->want) {
		s->found = s->ts;
		return 1;
	}
	s->ts = py_read64(s->ts + l->ts_next);
	return 0;
}

/* This thread's PyThreadState, or 0. */
static __always_inline __u64 py_tstate(const struct py_proc *p, __u32 tid, __u64 now)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 self = BPF_CORE_READ(task, thread.fsbase), interp;
	const struct py_layout *l = &p->l;
	struct py_thread *c = bpf_map_lookup_elem(&pythreads, &tid), v = {};
	struct py_tsearch s = { .l = l, .want = self };

	if (c && c->tstate && py_read64(c->tstate + l->ts_thread_id) == self)
		return c->tstate;
	if (c && !c->tstate && now - c->searched < PY_RESEARCH_NS)
		return 0;
	interp = py_read64(p->runtime + l->rt_interp_head);
	if (interp)
		s.ts = py_read64(interp + l->is_threads_head);
	bpf_loop(PY_MAX_THREADS, py_tsearch_step, &s, 0);
	v.tstate = s.found;
	v.searched = now;
	bpf_map_update_elem(&pythreads, &tid, &v, BPF_ANY);
	return s.found;
}

struct py_walk {
	const struct py_layout *l;
	struct py_buf *b;
	__u64 frame;
	__u32 n;
	__u16 flags;
};

static __always_inline __u64 py_field(const __u8 *fb, __u16 off, __u32 size)
{
	__u64 v = 0;

	if (off > PY_FRAME_SPAN - 8)
		return 0;
	if (size == 8)
		v = *(const __u64 *)(fb + off);
	else if (size == 4)
		v = *(const __u32 *)(fb + off);
	else
		v = fb[off];
	return v;
}

/* The fingerprint of the code object at code (0: unreadable). */
static __always_inline __u32 py_code_fp_read(const struct py_layout *l, __u8 *buf, __u64 code)
{
	__u32 len = l->co_fp_len, s = l->co_fp_start;

	if (!len || len > PY_FRAME_SPAN ||
	    bpf_probe_read_user(buf, len & (PY_FRAME_SPAN | (PY_FRAME_SPAN - 1)), (void *)(code + s)))
		return 0;
	return py_code_fp(py_field(buf, l->co_filename - s, 8), py_field(buf, l->co_name - s, 8),
			  (__u32)py_field(buf, l->co_firstlineno - s, 4));
}

static long py_walk_step(__u64 i, void *data)
{
	struct py_walk *w = data;
	const struct py_layout *l = w->l;
	struct py_buf *b = w->b;
	struct py_frame *f;
	__u64 code, prev, instr;
	__u32 span = l->fr_span, n = w->n;

	if (w->frame < 0x1000)
		return 1;
	if (n >= PY_MAX_FRAMES) {
		w->flags |= PYF_CUT;
		return 1;
	}
	if (span > PY_FRAME_SPAN || span < 8 ||
	    bpf_probe_read_user(b->frame, span & (PY_FRAME_SPAN | (PY_FRAME_SPAN - 1)), (void *)w->frame)) {
		w->flags |= PYF_BAD;
		return 1;
	}
	prev = py_field(b->frame, l->fr_previous, 8);
	if (prev == w->frame) {
		w->flags |= PYF_BAD;
		return 1;
	}
	w->frame = prev;
	/* 3.12+: the shim an eval call starts with ends the frames it ran. */
	if (l->fr_owner != PY_NONE && py_field(b->frame, l->fr_owner, 1) == l->owner_cstack) {
		if (n > 0 && n <= PY_MAX_FRAMES)
			((struct py_frame *)(b->sec + sizeof(struct rec_pystack)))[n - 1].code |= PY_CODE_ENTRY;
		return 0;
	}
	code = py_field(b->frame, l->fr_code, 8);
	f = (struct py_frame *)(b->sec + sizeof(struct rec_pystack)) + n;
	f->code = code;
	if (l->fr_owner == PY_NONE && l->fr_is_entry == PY_NONE) {
		/* <= 3.10: a frame object per eval call, f_lasti an int. */
		f->instr = (__u32)py_field(b->frame, l->fr_instr, 4);
		f->code |= PY_CODE_ENTRY;
	} else {
		instr = py_field(b->frame, l->fr_instr, 8) - code;
		f->instr = instr < (1u << 31) ? (__u32)instr : ~0u;
		if (l->fr_is_entry != PY_NONE && py_field(b->frame, l->fr_is_entry, 1))
			f->code |= PY_CODE_ENTRY;
	}
	f->fp = py_code_fp_read(l, b->frame, code);
	w->n = n + 1;
	return 0;
}

/* The nesting level a record is being built at (scratch_claim's). */
static __always_inline __u32 py_level(void)
{
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);

	return s && s->depth ? s->depth - 1 : 0;
}

/* This task's Python frames as a section in pybufs[level].sec: its length, 0 when the
 * task runs no Python.  A global function: verified once per program, not at every place
 * a record takes a stack (that tripled the programs' load time). */
__noinline int py_collect(__u32 level)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32, tid = (__u32)pid_tgid;
	struct py_proc *p = bpf_map_lookup_elem(&pyprocs, &tgid);
	struct py_walk w = {};
	struct rec_pystack *sec;
	__u64 ts, frame;

	if (!p)
		return 0;
	ts = py_tstate(p, tid, bpf_ktime_get_ns());
	if (!ts) {
		cnt_add(CNT_PY_NO_THREAD, 1);
		return 0;
	}
	frame = py_read64(ts + p->l.ts_frame);
	if (frame && p->l.cf_current != PY_NONE)
		frame = py_read64(frame + p->l.cf_current);
	w.b = bpf_map_lookup_elem(&pybufs, &level);
	if (!frame || !w.b)
		return 0;
	w.l = &p->l;
	w.frame = frame;
	bpf_loop(PY_MAX_FRAMES + 1, py_walk_step, &w, 0);
	if (!w.n)
		return 0;
	sec = (struct rec_pystack *)w.b->sec;
	sec->n = w.n;
	sec->flags = w.flags;
	sec->magic = PY_SECTION_MAGIC;
	cnt_add(CNT_PY_STACKS, 1);
	if (w.flags & PYF_CUT)
		cnt_add(CNT_PY_CUT, 1);
	if (w.flags & PYF_BAD)
		cnt_add(CNT_PY_BAD, 1);
	return sizeof(*sec) + w.n * sizeof(struct py_frame);
}

/* Append this task's Python frames to the record of `size` bytes in a buffer of `cap`:
 * the record's new size (unchanged when the task runs no Python). */
static __always_inline __u64 py_append(void *rec, __u64 size, __u64 cap)
{
	__u32 level = py_level();
	__u64 len = (__u64)py_collect(level), off;
	struct py_buf *b;

	if (!len)
		return size;
	b = bpf_map_lookup_elem(&pybufs, &level);
	if (!b)
		return size;
	off = size;
	barrier_var(off);	/* the bound checked is the one used */
	if (len > PY_SECTION_MAX || off > cap - PY_SECTION_MAX)
		return size;
	if (bpf_probe_read_kernel(rec + off, len, b->sec))
		return size;
	((struct rec_hdr *)rec)->flags |= REC_F_PYSTACK;
	return size + len;
}

#endif
