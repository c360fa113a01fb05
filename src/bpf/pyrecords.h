/* CPython frames in stack records: the per-process layout user space hands the kernel,
 * and the section a record carries when its task ran Python.  Shared by python.bpf.h and
 * user space (record: detection; finalize: labels).  Fixed-width types only. */
#ifndef PROBEX_BPF_PYRECORDS_H
#define PROBEX_BPF_PYRECORDS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define PY_MAX_FRAMES	128	/* Python frames per stack: deeper walks are cut, counted */
#define PY_NONE		0xffff	/* a layout field this version does not have */
#define PY_FRAME_SPAN	128	/* most bytes of a frame read at once (fr_span) */
#define PY_MAX_THREADS	256	/* thread states searched for the current thread */

/* Offsets into CPython's structures for one version (scripts/gen-pylayout.sh; 3.13 from
 * _Py_DebugOffsets).  The kernel uses the first group, user space the rest. */
struct py_layout {
	__u16 version;		/* 0x030b for 3.11 */
	__u16 rt_interp_head;	/* _PyRuntime.interpreters.head */
	__u16 is_threads_head;	/* PyInterpreterState.tstate_head / threads.head */
	__u16 ts_next;		/* PyThreadState.next */
	__u16 ts_thread_id;	/* PyThreadState.thread_id (pthread_self) */
	__u16 ts_frame;		/* PyThreadState.frame (<= 3.10), .cframe (3.11, 3.12), .current_frame */
	__u16 cf_current;	/* _PyCFrame.current_frame (3.11, 3.12), else PY_NONE */
	__u16 fr_previous;	/* f_back / previous */
	__u16 fr_code;		/* f_code / f_executable */
	__u16 fr_instr;		/* f_lasti (int, <= 3.10) / prev_instr / instr_ptr */
	__u16 fr_is_entry;	/* 3.11 is_entry, else PY_NONE */
	__u16 fr_owner;		/* 3.12+ owner, else PY_NONE */
	__u16 owner_cstack;	/* FRAME_OWNED_BY_CSTACK: an entry frame's shim */
	__u16 co_adaptive;	/* co_code_adaptive (3.11+) */
	__u16 co_name;
	__u16 co_qualname;	/* PY_NONE before 3.11 */
	__u16 co_filename;
	__u16 co_firstlineno;
	__u16 co_linetable;	/* co_lnotab (3.8, 3.9) / co_linetable */
	__u16 co_code;		/* co_code (bytes, <= 3.10), else PY_NONE */
	__u16 uni_ascii_size;	/* sizeof(PyASCIIObject) */
	__u16 uni_compact_size;	/* sizeof(PyCompactUnicodeObject) */
	__u16 uni_state;	/* offsetof(PyASCIIObject, state) */
	__u16 bytes_sval;	/* offsetof(PyBytesObject, ob_sval) */
	__u16 fr_span;		/* bytes of a frame the kernel reads (set by user space) */
	__u16 co_fp_start;	/* the bytes of a code object its fingerprint is read from */
	__u16 co_fp_len;	/* (set by user space; 0: no fingerprint) */
	__u16 _pad[3];
};

/* Per traced CPython process (the map pyprocs, by tgid). */
struct py_proc {
	__u64 runtime;		/* address of _PyRuntime */
	__u64 code_type;	/* address of PyCode_Type: what a code object's ob_type is */
	struct py_layout l;
};

#define PYF_CUT		0x2	/* (section flags) the walk stopped at PY_MAX_FRAMES */
#define PYF_BAD		0x4	/* (section flags) the chain was unreadable or cyclic */

/* py_frame.code's top bit: the root-most frame one C-level eval call ran (addresses of
 * user memory never have it). */
#define PY_CODE_ENTRY	(1ull << 63)

/* One Python frame, leaf first: the code object, where in it (3.11+: the bytes from the
 * code object to the instruction pointer; <= 3.10: f_lasti), and its fingerprint (read
 * with it: a code object freed and another made at its address differ in it). */
struct py_frame {
	__u64 code;		/* | PY_CODE_ENTRY */
	__u32 instr;
	__u32 fp;		/* py_code_fp() */
};

/* A code object's fingerprint from its file name and name (the objects' addresses) and
 * first line: the same in the kernel and in user space. */
static inline __u32 py_code_fp(__u64 filename, __u64 name, __u32 firstlineno)
{
	return (__u32)(filename >> 4) ^ (__u32)(name >> 4) * 0x9e3779b1u ^ firstlineno;
}

/* A record with REC_F_PYSTACK ends with this and n frames (after its stacks or stack copy). */
struct rec_pystack {
	__u16 n;
	__u16 flags;		/* PYF_CUT, PYF_BAD */
	__u32 magic;		/* PY_SECTION_MAGIC: what finds the section from the end */
};

#define PY_SECTION_MAGIC	0x79507850u	/* "PxPy" */
#define REC_F_PYSTACK		0x200

#define PY_SECTION_MAX	(sizeof(struct rec_pystack) + PY_MAX_FRAMES * sizeof(struct py_frame))

#endif
