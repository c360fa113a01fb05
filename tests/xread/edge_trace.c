/* Writes a trace file through probex's own writer (trace_schema columns, pq_writer) whose
 * values are the edges Arrow readers and DuckDB may disagree on: u64 values at and
 * above 2^63, negative i64/i32, null and empty stack lists, null list items, non-ASCII
 * strings.  With --bad-utf8 one process name is not UTF-8 (recordings never write that:
 * finalize stores U+FFFD; this shows what each reader does with such a file).
 *
 *   edge_trace OUT.parquet [--bad-utf8]
 *
 * tests/xread/xread.test.mjs holds the same rows as its expectation. */
#include <stdio.h>
#include <string.h>

#include "parquet/colbuf.h"
#include "trace/schema.h"

#define BIG (1ull << 63)

static const char *names[] = { "main", "prüf-日本", "", ("bad\xff\xfe" "name") };
static const char *labels[] = { "[user]", "main", "fork_child", "leaf", "日本語", "[kernel]" };
/* 0: user stack; 1: empty; 2: with a null item; 3: user + kernel */
static const uint32_t offsets[] = { 0, 3, 3, 6, 11 };
static const uint32_t items[] = { 0, 1, 2, 0, PQ_NULL_ITEM, 3, 0, 1, 4, 5, 3 };

enum { NONE = -1 };

struct edge_row {
	int ev, name, list;
	uint64_t ts, cpu;
	void (*fill)(struct colbuf *c);
};

static void fork_cols(struct colbuf *c)
{
	colbuf__set(c, TC_PARENT_PID, 10);
	colbuf__set(c, TC_CHILD_PID, 4294967295u);
	colbuf__set(c, TC_CHILD_TGID, 4294967295u);
	colbuf__set(c, TC_IS_THREAD, 0);
}

static void exit_cols(struct colbuf *c)
{
	colbuf__set(c, TC_EXIT_CODE, (uint32_t)-1);
	colbuf__set(c, TC_EXIT_SIGNAL, 9);
	colbuf__set(c, TC_IS_THREAD, 1);
}

static void fault_cols(struct colbuf *c)
{
	colbuf__set(c, TC_ADDRESS, 0xffffffff81000000ull);
	colbuf__set(c, TC_ERROR_CODE, BIG);
	colbuf__set(c, TC_STACK_ID, (uint32_t)INT32_MIN);
	colbuf__set(c, TC_KSTACK_ID, (uint32_t)INT32_MAX);
	colbuf__set(c, TC_STACK_KIND, 2);
}

static void read_cols(struct colbuf *c)
{
	colbuf__set(c, TC_FD, (uint64_t)-100);
	colbuf__set(c, TC_COUNT, UINT64_MAX);
}

static void read_exit_cols(struct colbuf *c)
{
	colbuf__set(c, TC_RET, (uint64_t)INT64_MIN);
	colbuf__set(c, TC_LATENCY, BIG + 1);
}

static void switch_cols(struct colbuf *c)
{
	colbuf__set(c, TC_PREV_PID, 0);
	colbuf__set(c, TC_NEXT_PID, 4000000000u);
	colbuf__set(c, TC_PREV_STATE, (uint64_t)INT64_MAX);
}

static void uring_cols(struct colbuf *c)
{
	colbuf__set(c, TC_SUBMIT_TS, BIG - 1);
	colbuf__set(c, TC_IOU_OPCODE, 255);
	colbuf__set(c, TC_IOU_RES, (uint32_t)-125);
	colbuf__set(c, TC_IOU_USER_DATA, UINT64_MAX - 1);
}

static void mmap_cols(struct colbuf *c)
{
	colbuf__set(c, TC_ADDRESS, 0);
	colbuf__set(c, TC_COUNT, BIG);
	colbuf__set(c, TC_MMAP_PROT, 7);
	colbuf__set(c, TC_MMAP_FLAGS, 0x80000000u);
	colbuf__set(c, TC_MMAP_FD, (uint32_t)-1);
	colbuf__set(c, TC_WEIGHT, 4294967295u);
}

static const struct edge_row rows[] = {
	{ EV_PROCESS_FORK, 0, 0, 100, 0, fork_cols },
	{ EV_CPU_SAMPLE, 1, 1, 110, 1, NULL },
	{ EV_CPU_SAMPLE, 2, 2, 120, 255, NULL },
	{ EV_PAGE_FAULT, 1, 3, 130, 4096, fault_cols },
	{ EV_READ_ENTER, 0, NONE, 140, 3, read_cols },
	{ EV_READ_EXIT, NONE, 0, 150, 3, read_exit_cols },
	{ EV_SCHED_SWITCH, 0, NONE, 160, 4294967295u, switch_cols },
	{ EV_IO_URING_COMPLETE, 1, 3, BIG - 1, 2, uring_cols },
	{ EV_MMAP_ENTER, 0, 0, BIG, 2, mmap_cols },
	{ EV_PROCESS_EXIT, 1, NONE, UINT64_MAX, 0, exit_cols },
};

int main(int argc, char **argv)
{
	const int nrows = (int)(sizeof(rows) / sizeof(rows[0]));
	const bool bad = argc > 2 && !strcmp(argv[2], "--bad-utf8");
	uint32_t name_lens[4], label_lens[6];
	struct pq_dict name_dict = { names, name_lens, bad ? 4 : 3 };
	struct pq_dict label_dict = { labels, label_lens, 6 };
	struct pq_lists lists = { offsets, items, 4 };
	struct pq_kv kv[] = { { META_SAMPLE_FREQ_HZ, "1999" },
			      { META_STACK_FORMAT, META_STACK_FORMAT_V1 } };
	struct pq_writer *w = NULL;
	struct colbuf c;
	int err;

	if (argc < 2) {
		fprintf(stderr, "usage: edge_trace OUT.parquet [--bad-utf8]\n");
		return 2;
	}
	for (int i = 0; i < 4; i++)
		name_lens[i] = (uint32_t)strlen(names[i]);
	for (int i = 0; i < 6; i++)
		label_lens[i] = (uint32_t)strlen(labels[i]);
	err = colbuf__init(&c, trace_schema__pq_columns(), TC__COUNT, (uint32_t)nrows);
	if (err)
		goto out;
	colbuf__set_dict(&c, TC_EVENT_TYPE, trace_schema__event_dict(), NULL);
	colbuf__set_dict(&c, TC_STACK_KIND, &stack_kind_dict, NULL);
	colbuf__set_dict(&c, TC_PROCESS_NAME, &name_dict, NULL);
	colbuf__set_dict(&c, TC_FILENAME, &name_dict, NULL);
	colbuf__set_dict(&c, TC_WAKER_NAME, &name_dict, NULL);
	colbuf__set_dict(&c, TC_STACK_TRACE, &label_dict, &lists);
	colbuf__set_dict(&c, TC_STACK_MODULES, &label_dict, &lists);
	colbuf__set_dict(&c, TC_WAKER_STACK, &label_dict, &lists);
	colbuf__set_dict(&c, TC_PROBE_ARGS, &name_dict, NULL);
	colbuf__set_dict(&c, TC_ARGV, &label_dict, &lists);
	colbuf__set_dict(&c, TC_FD_PATH, &name_dict, NULL);
	err = pq_writer__open(&w, argv[1], trace_schema__pq_columns(), TC__COUNT, NULL);
	for (int i = 0; i < nrows && !err; i++) {
		const struct edge_row *r = &rows[i];

		colbuf__set(&c, TC_EVENT_TYPE, (uint32_t)r->ev);
		colbuf__set(&c, TC_TS, r->ts);
		colbuf__set(&c, TC_PID, 10 + (uint32_t)i);
		colbuf__set(&c, TC_TGID, 10);
		colbuf__set(&c, TC_CPU, r->cpu);
		if (r->name != NONE)
			colbuf__set(&c, TC_PROCESS_NAME, (uint32_t)(bad && i == 1 ? 3 : r->name));
		if (r->list != NONE) {
			colbuf__set(&c, TC_STACK_TRACE, (uint32_t)r->list);
			colbuf__set(&c, TC_STACK_MODULES, (uint32_t)r->list);
			colbuf__set(&c, TC_WAKER_STACK, (uint32_t)r->list);
		}
		if (r->fill)
			r->fill(&c);
		colbuf__next(&c);
	}
	if (!err)
		err = colbuf__flush(&c, w);
	if (!err)
		err = pq_writer__close(w, kv, 2);
	else
		pq_writer__abort(w);
	colbuf__free(&c);
out:
	if (err)
		fprintf(stderr, "edge_trace: %s: %s\n", argv[1], strerror(-err));
	return err ? 1 : 0;
}
