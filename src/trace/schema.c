#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "trace/schema.h"
#include "trace/syscalls.h"

const char *const event_type_names[EV__COUNT] = {
	[EV_SCHED_SWITCH] = "sched_switch",
	[EV_PROCESS_FORK] = "process_fork",
	[EV_PROCESS_EXIT] = "process_exit",
	[EV_PAGE_FAULT] = "page_fault",
	[EV_READ_ENTER] = "syscall_read_enter",
	[EV_READ_EXIT] = "syscall_read_exit",
	[EV_WRITE_ENTER] = "syscall_write_enter",
	[EV_WRITE_EXIT] = "syscall_write_exit",
	[EV_MMAP_ENTER] = "syscall_mmap_enter",
	[EV_MMAP_EXIT] = "syscall_mmap_exit",
	[EV_MUNMAP_ENTER] = "syscall_munmap_enter",
	[EV_MUNMAP_EXIT] = "syscall_munmap_exit",
	[EV_BRK_ENTER] = "syscall_brk_enter",
	[EV_BRK_EXIT] = "syscall_brk_exit",
	[EV_IO_URING_SETUP_ENTER] = "syscall_io_uring_setup_enter",
	[EV_IO_URING_SETUP_EXIT] = "syscall_io_uring_setup_exit",
	[EV_IO_URING_ENTER_ENTER] = "syscall_io_uring_enter_enter",
	[EV_IO_URING_ENTER_EXIT] = "syscall_io_uring_enter_exit",
	[EV_IO_URING_REGISTER_ENTER] = "syscall_io_uring_register_enter",
	[EV_IO_URING_REGISTER_EXIT] = "syscall_io_uring_register_exit",
	[EV_CPU_SAMPLE] = "cpu_sample",
	[EV_FSYNC_ENTER] = "syscall_fsync_enter",
	[EV_FSYNC_EXIT] = "syscall_fsync_exit",
	[EV_FDATASYNC_ENTER] = "syscall_fdatasync_enter",
	[EV_FDATASYNC_EXIT] = "syscall_fdatasync_exit",
	[EV_IO_URING_COMPLETE] = "io_uring_complete",
	[EV_PROCESS_EXEC] = "process_exec",
	[EV_OFF_CPU] = "off_cpu",
};

/* The 0.1 format's ten syscalls keep their own ids. */
static int reference_syscall_ev(unsigned int nr)
{
	switch (nr) {
	case 0: return EV_READ_ENTER;
	case 1: return EV_WRITE_ENTER;
	case 9: return EV_MMAP_ENTER;
	case 11: return EV_MUNMAP_ENTER;
	case 12: return EV_BRK_ENTER;
	case 74: return EV_FSYNC_ENTER;
	case 75: return EV_FDATASYNC_ENTER;
	case 425: return EV_IO_URING_SETUP_ENTER;
	case 426: return EV_IO_URING_ENTER_ENTER;
	case 427: return EV_IO_URING_REGISTER_ENTER;
	default: return -1;
	}
}

int event_type__syscall(unsigned int nr, bool exit)
{
	int ev = reference_syscall_ev(nr);

	if (nr >= TRACE_SYSCALL_MAX)
		return -1;
	return (ev >= 0 ? ev : EV_SYSCALL0 + 2 * (int)nr) + exit;
}

static const char *all_names[EV_ALL_COUNT];
static char syscall_name_buf[2 * TRACE_SYSCALL_MAX][64];

const char *event_type__name(int id)
{
	trace_schema__event_dict();
	return id >= 0 && id < EV_ALL_COUNT ? all_names[id] : NULL;
}

int event_type__id(const char *name)
{
	trace_schema__event_dict();
	for (int i = 0; i < EV_ALL_COUNT; i++)
		if (strcmp(all_names[i], name) == 0)
			return i;
	return -1;
}

bool event_type__valid(const char *name)
{
	return event_type__id(name) >= 0 || (!strncmp(name, "probe_", 6) && name[6]) ||
	       (!strncmp(name, "usdt_", 5) && name[5]) || (!strncmp(name, "tp_", 3) && name[3]);
}

int event_type__from_name(const char *name)
{
	int id = event_type__id(name);

	return id < EV__COUNT ? id : -1;
}

const char *const stack_mode_names[3] = {
	[TRACE_STACKS_SAMPLED] = "sampled",
	[TRACE_STACKS_ALL] = "all",
	[TRACE_STACKS_NONE] = "none",
};

#define REF .reference = true
#define REQ .required = true

/* The 0.1 format's types, except cpu: UInt8 there, wrapped at 256 CPUs.  The Arrow types
 * that ARROW:schema declares follow from .type (see enum pq_type), so this table is also
 * the files' Arrow schema: List<"item": Utf8View> for stack_trace, UInt32 for cpu.  (An
 * Arrow type narrower than the Parquet one is no way out: given UInt8 over this INT(32)
 * column, arrow-rs keeps UInt32 but polars truncates, 4096 → 0.) */
const struct trace_column trace_schema[TC__COUNT] = {
	[TC_EVENT_TYPE] = { "event_type", PQ_STRING, REQ, REF, .viewer = true, .doc = "row type (event_type_names)" },
	[TC_TS] = { "ts_ns", PQ_U64, REQ, .delta = true, REF, .viewer = true, .doc = "CLOCK_MONOTONIC ns; rows are sorted by it" },
	[TC_PID] = { "pid", PQ_U32, REQ, REF, .viewer = true, .doc = "thread id" },
	[TC_TGID] = { "tgid", PQ_U32, REQ, REF, .doc = "process id" },
	[TC_PROCESS_NAME] = { "process_name", PQ_STRING, REF, .viewer = true, .doc = "thread comm (raw bytes)" },
	[TC_STACK_ID] = { "stack_id", PQ_I32, REF, .doc = "user stack id" },
	[TC_KSTACK_ID] = { "kernel_stack_id", PQ_I32, REF, .doc = "kernel stack id" },
	[TC_STACK_KIND] = { "stack_kind", PQ_STRING, REF, .doc = "user, kernel or both" },
	[TC_STACK_TRACE] = { "stack_trace", PQ_STRING_LIST, REF, .viewer = true, .doc = "labels, root first" },
	[TC_CPU] = { "cpu", PQ_U32, REQ, REF, .doc = "CPU the row was recorded on" },
	[TC_PREV_PID] = { "prev_pid", PQ_U32, REF, .doc = "sched_switch: thread switched out" },
	[TC_NEXT_PID] = { "next_pid", PQ_U32, REF, .doc = "sched_switch: thread switched in" },
	[TC_PREV_STATE] = { "prev_state", PQ_I64, REF, .doc = "sched_switch: state of prev" },
	[TC_PARENT_PID] = { "parent_pid", PQ_U32, REF, .viewer = true, .doc = "process_fork: forking thread" },
	[TC_CHILD_PID] = { "child_pid", PQ_U32, REF, .viewer = true, .doc = "process_fork: new thread" },
	[TC_EXIT_CODE] = { "exit_code", PQ_I32, REF, .viewer = true, .doc = "process_exit: status or 128+signal" },
	[TC_ADDRESS] = { "address", PQ_U64, REF, .doc = "page_fault, mmap, munmap, brk address" },
	[TC_ERROR_CODE] = { "error_code", PQ_U64, REF, .doc = "page_fault error code" },
	[TC_FD] = { "fd", PQ_I64, REF, .doc = "syscall enter: file descriptor" },
	[TC_COUNT] = { "count", PQ_U64, REF, .viewer = true, .doc = "syscall enter: byte count or length" },
	[TC_RET] = { "ret", PQ_I64, REF, .viewer = true, .doc = "syscall exit: return value" },
	[TC_SUBMIT_TS] = { "submit_ts_ns", PQ_U64, .delta = true, REF, .viewer = true, .doc = "io_uring_complete: submission time" },
	[TC_IOU_OPCODE] = { "io_uring_opcode", PQ_U8, REF, .doc = "io_uring_complete: opcode" },
	[TC_IOU_RES] = { "io_uring_res", PQ_I32, REF, .viewer = true, .doc = "io_uring_complete: result" },
	[TC_LATENCY] = { "latency_ns", PQ_U64, .viewer = true, .doc = "exit - enter, completion - submission" },
	[TC_WEIGHT] = { "stack_weight", PQ_U32, .viewer = true, .doc = "events this sampled stack stands for" },
	[TC_CHILD_TGID] = { "child_tgid", PQ_U32, .doc = "process_fork: new process or thread's process" },
	[TC_IS_THREAD] = { "is_thread", PQ_BOOL, .doc = "process_fork/exit: a thread, not a process" },
	[TC_EXIT_SIGNAL] = { "exit_signal", PQ_I32, .doc = "process_exit: killing signal" },
	[TC_PREV_TGID] = { "prev_tgid", PQ_U32, .doc = "sched_switch: process of prev" },
	[TC_NEXT_TGID] = { "next_tgid", PQ_U32, .doc = "sched_switch: process of next" },
	[TC_FILENAME] = { "filename", PQ_STRING, .doc = "process_exec: executed file" },
	[TC_MMAP_PROT] = { "mmap_prot", PQ_U32, .doc = "syscall_mmap_enter: prot" },
	[TC_MMAP_FLAGS] = { "mmap_flags", PQ_U32, .doc = "syscall_mmap_enter: flags" },
	[TC_MMAP_FD] = { "mmap_fd", PQ_I32, .doc = "syscall_mmap_enter: fd" },
	[TC_IOU_USER_DATA] = { "io_uring_user_data", PQ_U64, .doc = "io_uring_complete: user_data" },
	[TC_STACK_MODULES] = { "stack_modules", PQ_STRING_LIST, .doc = "object of each stack_trace label" },
	[TC_OFFSET] = { "offset", PQ_I64, .doc = "syscall enter: file offset (pread64, lseek, ...)" },
	[TC_FUTEX_OP] = { "futex_op", PQ_I32, .doc = "syscall_futex_enter: op" },
	[TC_SYSCALL_NR] = { "syscall_nr", PQ_U32, .doc = "syscall enter/exit: x86-64 syscall number" },
	[TC_WAKER_PID] = { "waker_pid", PQ_U32, .doc = "off_cpu: thread that woke it (0: none seen)" },
	[TC_WAKER_TGID] = { "waker_tgid", PQ_U32, .doc = "off_cpu: process of the waker" },
	[TC_WAKER_STACK] = { "waker_stack_trace", PQ_STRING_LIST, .doc = "off_cpu: the waker's stack when it was sampled, labels root first" },
	[TC_STACK_TRACE_ID] = { "stack_trace_id", PQ_U32, .dict = true, .viewer = true, .doc = "stack_trace by number: rows with the same number have the same list" },
	[TC_STACK_TRACE_FIRST] = { "stack_trace_first", PQ_BOOL, .viewer = true, .doc = "true on the first row (file order) of each stack_trace_id, else NULL" },
	[TC_RUNNABLE] = { "runnable_ns", PQ_U64, .doc = "off_cpu: ns from its wakeup to running again, the end of latency_ns spent waiting for a CPU (NULL: no wakeup seen, or a trace without it)" },
	[TC_PROBE_ARGS] = { "probe_args", PQ_STRING, .doc = "--probe rows (probe_*_enter, usdt_*, tp_*): arguments, the text of a JSON object" },
	[TC_WAKER_NAME] = { "waker_name", PQ_STRING, .doc = "off_cpu: the waker's comm at the wakeup, traced or not (NULL: no waker, or a trace without it)" },
	[TC_ARGV] = { "argv", PQ_STRING_LIST, .doc = "process_exec: the command line, at most 4 KiB in all (a longer one is cut, counted in probex.drops argv_truncated)" },
	[TC_FD_PATH] = { "fd_path", PQ_STRING, .doc = "syscall enter with an fd (fd, mmap_fd): the path that fd was opened with, when probex saw the open or found it in /proc at the start (NULL: unknown)" },
};

static const char *const stack_kinds[] = { "user", "kernel", "both" };
static const uint32_t stack_kind_lens[] = { 4, 6, 4 };
const struct pq_dict stack_kind_dict = { stack_kinds, stack_kind_lens, 3 };

static struct pq_column_def pq_columns[TC__COUNT];
static uint32_t event_lens[EV_ALL_COUNT];
static struct pq_dict event_dict = { all_names, event_lens, EV_ALL_COUNT };
static pthread_once_t pq_columns_once = PTHREAD_ONCE_INIT;

static void build_pq_columns(void)
{
	for (int i = 0; i < EV__COUNT; i++)
		all_names[i] = event_type_names[i];
	for (unsigned int nr = 0; nr < TRACE_SYSCALL_MAX; nr++) {
		const char *n = syscall__name(nr);

		for (int x = 0; x < 2; x++) {
			char *b = syscall_name_buf[2 * nr + x];

			if (n)
				snprintf(b, sizeof(syscall_name_buf[0]), "syscall_%s_%s", n, x ? "exit" : "enter");
			else
				snprintf(b, sizeof(syscall_name_buf[0]), "syscall_nr%u_%s", nr, x ? "exit" : "enter");
			all_names[EV_SYSCALL0 + 2 * nr + x] = b;
		}
	}
	for (int i = 0; i < EV_ALL_COUNT; i++)
		event_lens[i] = (uint32_t)strlen(all_names[i]);
	for (int i = 0; i < TC__COUNT; i++)
		pq_columns[i] = (struct pq_column_def){ .name = trace_schema[i].name,
							.type = trace_schema[i].type,
							.required = trace_schema[i].required,
							.delta = trace_schema[i].delta,
							.dict = trace_schema[i].dict };
}

const struct pq_column_def *trace_schema__pq_columns(void)
{
	pthread_once(&pq_columns_once, build_pq_columns);
	return pq_columns;
}

const struct pq_dict *trace_schema__event_dict(void)
{
	pthread_once(&pq_columns_once, build_pq_columns);
	return &event_dict;
}
