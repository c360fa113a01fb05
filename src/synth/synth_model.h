/* Workload model for `probex synth`: processes, threads and the rows they produce, plus the
 * realistic stack labels those rows carry.  Everything derives from one seed. */
#ifndef PROBEX_SYNTH_SYNTH_MODEL_H
#define PROBEX_SYNTH_SYNTH_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which of a row's first 24 columns (the 0.1 format's) are not null, one bit each. */
enum synth_col {
	SR_NAME = 1u << 0,
	SR_STACK = 1u << 1,	/* stack_trace, stack_kind */
	SR_STACK_IDS = 1u << 2,	/* stack_id, kernel_stack_id */
	SR_SWITCH = 1u << 3,	/* prev_pid, next_pid, prev_state, prev_tgid, next_tgid */
	SR_FORK = 1u << 4,	/* parent_pid, child_pid, child_tgid, is_thread */
	SR_EXIT = 1u << 5,	/* exit_code, is_thread */
	SR_ADDRESS = 1u << 6,
	SR_ERROR_CODE = 1u << 7,
	SR_FD = 1u << 8,
	SR_COUNT = 1u << 9,
	SR_RET = 1u << 10,
	SR_URING = 1u << 11,	/* submit_ts_ns, io_uring_opcode, io_uring_res */
	SR_LATENCY = 1u << 12,	/* latency_ns (exit and completion rows) */
	SR_OFFCPU = 1u << 13,	/* prev_state, waker_pid, waker_tgid (off_cpu rows) */
};

enum synth_stack_kind { SK_NONE, SK_USER, SK_KERNEL, SK_BOTH };

/* What a stack was captured for: picks the libc leaf and the kernel call path. */
enum synth_ctx {
	SYN_CTX_CPU,
	SYN_CTX_READ,
	SYN_CTX_WRITE,
	SYN_CTX_MMAP,
	SYN_CTX_MUNMAP,
	SYN_CTX_BRK,
	SYN_CTX_FSYNC,
	SYN_CTX_FDATASYNC,
	SYN_CTX_URING_ENTER,
	SYN_CTX_URING_SETUP,
	SYN_CTX_URING_REGISTER,
	SYN_CTX_SWITCH,
	SYN_CTX_FAULT,
	SYN_CTX_FORK,
	SYN_CTX_EXIT,
	SYN_CTX_URING_COMPLETE,
};

struct synth_row {
	uint64_t ts, order;	/* order: position in the file (ring-buffer consumption order) */
	uint32_t pid, tgid, cols;
	uint8_t event_type, cpu, stack_kind, io_uring_opcode;
	int32_t name, stack, stack_id, kernel_stack_id, exit_code, io_uring_res;
	int32_t waker_name;	/* off_cpu with a waker: its name */
	uint32_t prev_pid, next_pid, parent_pid, child_pid;
	uint32_t prev_tgid, next_tgid, child_tgid, waker_pid, waker_tgid;
	bool is_thread;
	int64_t prev_state, fd, ret;
	uint64_t address, error_code, count, submit_ts, latency;
};

struct synth_params {
	uint64_t events;	/* rows wanted in the file */
	uint64_t seed;
	uint64_t duration_ns;	/* trace length; 0 = 1 µs per event */
	uint32_t lost_ppm;	/* syscall rows dropped per million (enter/exit mismatches) */
};

/* Unique stack label lists, each stored as labels joined by '\x1f'. */
struct synth_stacks {
	char **joined;
	size_t n, cap;
	struct synth_stack_slot *slots;	/* open-addressing map key → id */
	size_t slot_cap;
};

typedef int (*synth_emit_fn)(void *ctx, const struct synth_row *row);

/* The workload's simulation, one thread-step at a time: each step emits the next rows of
 * one thread.  A step's rows may lie ahead of the next step's (io_uring completions), but
 * never before the thread's frontier, so a caller merging the threads by time holds only
 * the rows between a thread's frontier and its furthest completion.  All threads share
 * one random stream: the same order of steps gives the same rows. */
struct synth_sim;

int synth_sim__new(struct synth_sim **sim, const struct synth_params *p, double scale,
		   struct synth_stacks *st);
unsigned int synth_sim__threads(const struct synth_sim *sim);
/* Emit the thread's next rows: 1, 0 when the thread has ended, or negative errno. */
int synth_sim__step(struct synth_sim *sim, unsigned int thread, synth_emit_fn emit, void *ctx);
/* No row the thread emits from now on is earlier than this (UINT64_MAX: it has ended). */
uint64_t synth_sim__frontier(const struct synth_sim *sim, unsigned int thread);
void synth_sim__free(struct synth_sim *sim);

/* Thread names (process_name values) by the index stored in synth_row.name. */
extern const char *const synth_names[];
extern const unsigned int synth_names_count;

void synth_stacks__init(struct synth_stacks *st);
void synth_stacks__free(struct synth_stacks *st);
/* The id of the stack for (program, context, chain, variant), created on first use. */
int synth_stacks__get(struct synth_stacks *st, unsigned int prog, unsigned int ctx,
		      unsigned int chain, unsigned int variant);

#endif
