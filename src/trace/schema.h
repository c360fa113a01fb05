/* The trace file's vocabulary: event types and metadata keys shared by writer and viewer.
 *
 * Files keep the 0.1 format's schema and row model — separate *_enter and *_exit rows,
 * the same event_type strings and columns — so a query written for 0.1 files means the
 * same on these.  Added facts live in added columns and metadata keys. */
#ifndef PROBEX_TRACE_SCHEMA_H
#define PROBEX_TRACE_SCHEMA_H

#include <stdbool.h>
#include <string.h>

#include "parquet/parquet.h"
#include "trace/syscalls.h"

enum event_type {
	EV_SCHED_SWITCH = 0,
	EV_PROCESS_FORK,
	EV_PROCESS_EXIT,
	EV_PAGE_FAULT,
	EV_READ_ENTER,
	EV_READ_EXIT,
	EV_WRITE_ENTER,
	EV_WRITE_EXIT,
	EV_MMAP_ENTER,
	EV_MMAP_EXIT,
	EV_MUNMAP_ENTER,
	EV_MUNMAP_EXIT,
	EV_BRK_ENTER,
	EV_BRK_EXIT,
	EV_IO_URING_SETUP_ENTER,
	EV_IO_URING_SETUP_EXIT,
	EV_IO_URING_ENTER_ENTER,
	EV_IO_URING_ENTER_EXIT,
	EV_IO_URING_REGISTER_ENTER,
	EV_IO_URING_REGISTER_EXIT,
	EV_CPU_SAMPLE,
	EV_FSYNC_ENTER,
	EV_FSYNC_EXIT,
	EV_FDATASYNC_ENTER,
	EV_FDATASYNC_EXIT,
	EV_IO_URING_COMPLETE,
	/* not in the 0.1 format */
	EV_PROCESS_EXEC,
	EV_OFF_CPU,
	EV__COUNT,
};

/* event_type column strings, indexed by enum event_type. */
extern const char *const event_type_names[EV__COUNT];

/* Every other syscall has an id of its own past the fixed types: syscall_<name>_enter at
 * EV_SYSCALL0 + 2 * nr, _exit one after (the 0.1 format's ten keep their EV_* ids). */
#define EV_SYSCALL0	EV__COUNT
#define EV_ALL_COUNT	(EV_SYSCALL0 + 2 * TRACE_SYSCALL_MAX)

/* The event type id of syscall nr's enter (exit = false) or exit row. */
int event_type__syscall(unsigned int nr, bool exit);
/* The string of any event type id (fixed or syscall), or NULL. */
const char *event_type__name(int id);

/* The id of any event type a trace can hold (fixed or syscall_NAME_enter/exit), or -1
 * for a name this version does not know.  Every option taking an event type uses it. */
int event_type__id(const char *name);
/* Whether a trace can hold rows of this type: one event_type__id knows, or a --probe's
 * (probe_FUNC_enter/exit, usdt_PROVIDER_NAME, tp_CATEGORY_NAME: named per recording). */
bool event_type__valid(const char *name);
/* The enum value of a fixed type, else -1 (the viewer treats the others by their string). */
int event_type__from_name(const char *name);

/* The file's columns, in file order: the 0.1 format's 24 first, then probex's own.  Adding a
 * column is one line in trace_schema[] (schema.c) plus its value fill in the writers. */
enum trace_col {
	TC_EVENT_TYPE, TC_TS, TC_PID, TC_TGID, TC_PROCESS_NAME, TC_STACK_ID, TC_KSTACK_ID,
	TC_STACK_KIND, TC_STACK_TRACE, TC_CPU, TC_PREV_PID, TC_NEXT_PID, TC_PREV_STATE,
	TC_PARENT_PID, TC_CHILD_PID, TC_EXIT_CODE, TC_ADDRESS, TC_ERROR_CODE, TC_FD, TC_COUNT,
	TC_RET, TC_SUBMIT_TS, TC_IOU_OPCODE, TC_IOU_RES,
	/* not in the 0.1 format */
	TC_LATENCY, TC_WEIGHT, TC_CHILD_TGID, TC_IS_THREAD, TC_EXIT_SIGNAL, TC_PREV_TGID,
	TC_NEXT_TGID, TC_FILENAME, TC_MMAP_PROT, TC_MMAP_FLAGS, TC_MMAP_FD, TC_IOU_USER_DATA,
	TC_STACK_MODULES,
	TC_OFFSET, TC_FUTEX_OP, TC_SYSCALL_NR, TC_WAKER_PID, TC_WAKER_TGID, TC_WAKER_STACK,
	TC_STACK_TRACE_ID, TC_STACK_TRACE_FIRST, TC_RUNNABLE,
	TC_PROBE_ARGS, TC_WAKER_NAME, TC_ARGV, TC_FD_PATH,
	TC__COUNT,
};

/* What the trace schema says about a column; writers, reader and docs all use this. */
struct trace_column {
	const char *name;
	enum pq_type type;	/* physical/logical type (see enum pq_type) */
	bool required;		/* REQUIRED: never null */
	bool delta;		/* DELTA_BINARY_PACKED encoding (sorted values) */
	bool dict;		/* dictionary-encoded integers (few distinct values) */
	bool reference;		/* one of the 0.1 format's columns: every readable file has it */
	bool viewer;		/* the viewer reads it: checked when a file is opened */
	const char *doc;	/* which rows carry it and what it means */
};

extern const struct trace_column trace_schema[TC__COUNT];

/* stack_trace labels that are no frame: where the user part and the kernel part start,
 * and where a stack too deep to take whole was cut. */
#define STACK_MARK_USER		"[user]"
#define STACK_MARK_KERNEL	"[kernel]"
#define STACK_MARK_TRUNCATED	"[truncated]"
/* A kernel frame inside probex's own BPF programs: "probex:FUNC [bpf]", FUNC the program's
 * or one of its subprograms' C function. */
#define STACK_PROBEX_BPF_PREFIX	"probex:"

/* Whether the label s (len bytes) is the mark (one of STACK_MARK_*). */
static inline bool stack_mark__is(const char *s, size_t len, const char *mark)
{
	return len == strlen(mark) && !memcmp(s, mark, len);
}

/* prev_state values beyond the kernel's task state bits: a task that stayed runnable
 * (yielded) or was preempted.  Both are involuntary switches. */
#define TRACE_STATE_RUNNABLE	0
#define TRACE_STATE_PREEMPTED	256	/* 0x100 */

/* The Parquet writer's view of trace_schema, in the same order (built once). */
const struct pq_column_def *trace_schema__pq_columns(void);

/* Dictionaries of the event_type column (ids are enum event_type) and of stack_kind
 * (0 user, 1 kernel, 2 both). */
const struct pq_dict *trace_schema__event_dict(void);
extern const struct pq_dict stack_kind_dict;

/* File key-value metadata. The first two are required (as the 0.1 viewer requires them). */
#define META_SAMPLE_FREQ_HZ	"probex.sample_freq_hz"
#define META_STACK_FORMAT	"probex.stack_trace_format"
#define META_STACK_FORMAT_V1	"symbolized_v1"
#define META_VERSION		"probex.version"
#define META_COMMAND		"probex.command"		/* JSON array of argv */
#define META_START_WALLCLOCK	"probex.start_unix_ns"		/* wall clock at ts_ns == start_ts */
#define META_START_TS		"probex.start_ts_ns"		/* CLOCK_MONOTONIC at start */
#define META_BOOT_WALLCLOCK	"probex.boot_unix_ns"		/* wall clock − monotonic */
#define META_ROOT_PID		"probex.root_pid"
#define META_EXIT_STATUS	"probex.exit_status"		/* probex's own exit status */
#define META_HOSTNAME		"probex.hostname"
#define META_KERNEL		"probex.kernel"
#define META_STACK_MODE		"probex.stack_mode"		/* one of stack_mode_names */
#define META_USTACK_COPY	"probex.ustack_copy_bytes"	/* user stack copied per CPU sample; 0: fp */
#define META_STACK_WALK		"probex.stack_walk"	/* the in-kernel walk's tables and ends (JSON) */
#define META_STACK_INTERVAL_NS	"probex.stack_interval_ns"
#define META_DROPS		"probex.drops"			/* JSON object: counter → n */
#define META_EXACT		"probex.exact"			/* JSON array: exact counts (README) */
#define META_LOSSLESS		"probex.lossless"		/* JSON: --lossless pauses, paused_ns */
#define META_MISSING_PROBES	"probex.missing_probes"		/* JSON array */
#define META_PROBES		"probex.probes"			/* --probe: JSON array, one object per probe id */
#define META_FDS		"probex.fds"			/* JSON {tgid: {fd: path}} at the start */
#define META_CMDLINES		"probex.cmdlines"		/* JSON {tgid: [argv]} of attached processes */

/* probex.stack_mode values and --stacks names, indexed by enum trace_stack_mode. */
enum trace_stack_mode { TRACE_STACKS_SAMPLED, TRACE_STACKS_ALL, TRACE_STACKS_NONE };
extern const char *const stack_mode_names[3];

#endif
