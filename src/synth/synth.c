/* `probex synth -o FILE [--events N] [--seed S] [--duration-ms MS] [--sample-freq HZ]
 * [--lost-ppm P]`: write a realistic synthetic trace in the reference format (24 columns,
 * stack_trace as a list of labels, the two required metadata keys), identical for the same
 * arguments.  Rows are simulated in C (synth_sim.c), kept in memory, sorted into
 * ring-buffer-like order and written by probex's own Parquet writer (ZSTD, 2 threads). */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/sort.h"
#include "parquet/parquet.h"
#include "trace/schema.h"
#include "parquet/strtab.h"
#include "synth/synth.h"
#include "synth/synth_model.h"
#include "common/rng.h"

/* Every simulated row, kept until they are sorted into file order. */
struct row_store {
	struct synth_row *rows;
	uint64_t *order;	/* file position key: ts plus the reservation race */
	uint64_t n, cap;
	struct rng jitter;
};

static int store__emit(void *ctx, const struct synth_row *r)
{
	struct row_store *s = ctx;

	if (s->n == s->cap) {
		uint64_t cap = s->cap ? s->cap * 2 : 1 << 20;
		struct synth_row *rows = realloc(s->rows, cap * sizeof(*rows));
		uint64_t *order;

		if (!rows)
			return -ENOMEM;
		s->rows = rows;
		order = realloc(s->order, cap * sizeof(*order));
		if (!order)
			return -ENOMEM;
		s->order = order;
		s->cap = cap;
	}
	/* File order is ring-buffer consumption order: by time, give or take the couple of
	 * microseconds by which CPUs race to reserve (spec 4.5), so consumers must sort. */
	s->order[s->n] = r->ts + rng__below(&s->jitter, 2000);
	s->rows[s->n++] = *r;
	return 0;
}

/* Columns, names, order and types of the reference (spec 4.1). */
enum ocol {
	O_ET, O_TS, O_PID, O_TGID, O_NAME, O_SID, O_KSID, O_KIND, O_STACK, O_CPU, O_PREV, O_NEXT,
	O_PSTATE, O_PARENT, O_CHILD, O_EXIT, O_ADDR, O_ERR, O_FD, O_COUNT, O_RET, O_SUBMIT,
	O_OPCODE, O_RES, O__COUNT,
};

static const struct pq_column_def ocols[O__COUNT] = {
	[O_ET] = { .name = "event_type", .type = PQ_STRING, .required = true },
	[O_TS] = { .name = "ts_ns", .type = PQ_U64, .required = true, .delta = true },
	[O_PID] = { .name = "pid", .type = PQ_U32, .required = true },
	[O_TGID] = { .name = "tgid", .type = PQ_U32, .required = true },
	[O_NAME] = { .name = "process_name", .type = PQ_STRING },
	[O_SID] = { .name = "stack_id", .type = PQ_I32 },
	[O_KSID] = { .name = "kernel_stack_id", .type = PQ_I32 },
	[O_KIND] = { .name = "stack_kind", .type = PQ_STRING },
	[O_STACK] = { .name = "stack_trace", .type = PQ_STRING_LIST },
	[O_CPU] = { .name = "cpu", .type = PQ_U8, .required = true },
	[O_PREV] = { .name = "prev_pid", .type = PQ_U32 },
	[O_NEXT] = { .name = "next_pid", .type = PQ_U32 },
	[O_PSTATE] = { .name = "prev_state", .type = PQ_I64 },
	[O_PARENT] = { .name = "parent_pid", .type = PQ_U32 },
	[O_CHILD] = { .name = "child_pid", .type = PQ_U32 },
	[O_EXIT] = { .name = "exit_code", .type = PQ_I32 },
	[O_ADDR] = { .name = "address", .type = PQ_U64 },
	[O_ERR] = { .name = "error_code", .type = PQ_U64 },
	[O_FD] = { .name = "fd", .type = PQ_I64 },
	[O_COUNT] = { .name = "count", .type = PQ_U64 },
	[O_RET] = { .name = "ret", .type = PQ_I64 },
	[O_SUBMIT] = { .name = "submit_ts_ns", .type = PQ_U64, .delta = true },
	[O_OPCODE] = { .name = "io_uring_opcode", .type = PQ_U8 },
	[O_RES] = { .name = "io_uring_res", .type = PQ_I32 },
};

static size_t ocol_size(enum pq_type t)
{
	switch (t) {
	case PQ_U8: case PQ_BOOL: return 1;
	case PQ_U64: case PQ_I64: return 8;
	default: return 4;
	}
}

/* The label dictionary and one list of label ids per synthetic stack. */
struct label_lists {
	struct strtab labels;
	uint32_t *offsets, *items;
	uint32_t n, nitems, cap;
};

static int label_lists__build(struct label_lists *ll, const struct synth_stacks *st)
{
	ll->offsets = calloc(st->n + 1, sizeof(*ll->offsets));
	if (!ll->offsets)
		return -ENOMEM;
	for (size_t i = 0; i < st->n; i++) {
		const char *p = st->joined[i];

		while (*p) {
			const char *e = strchr(p, '\x1f');
			uint32_t len = e ? (uint32_t)(e - p) : (uint32_t)strlen(p);
			int64_t id = strtab__intern(&ll->labels, p, len);

			if (id < 0)
				return (int)id;
			if (ll->nitems == ll->cap) {
				uint32_t cap = ll->cap ? ll->cap * 2 : 4096;
				uint32_t *items = realloc(ll->items, cap * sizeof(*items));

				if (!items)
					return -ENOMEM;
				ll->items = items;
				ll->cap = cap;
			}
			ll->items[ll->nitems++] = (uint32_t)id;
			p += len;
			if (*p)
				p++;
		}
		ll->offsets[i + 1] = ll->nitems;
	}
	ll->n = (uint32_t)st->n;
	return 0;
}

static void label_lists__free(struct label_lists *ll)
{
	strtab__free(&ll->labels);
	free(ll->offsets);
	free(ll->items);
}

#define SET(col, ctype, v) (((ctype *)val[col])[i] = (ctype)(v))
#define VALID(col, cond) (valid[col][i] = (cond) ? 1 : 0)

/* Write rows perm[0..n) in row groups of group rows. */
static int write_parquet(const char *path, const struct row_store *s, const uint32_t *perm,
			 uint64_t n, const struct synth_stacks *st, unsigned long freq,
			 uint64_t group)
{
	static const char *const kinds[] = { "user", "kernel", "both" };
	static const uint32_t kind_lens[] = { 4, 6, 4 };
	uint32_t et_lens[EV__COUNT], name_lens[64];
	struct pq_dict et_dict = { event_type_names, et_lens, EV__COUNT };
	struct pq_dict name_dict = { synth_names, name_lens, synth_names_count };
	struct pq_dict kind_dict = { kinds, kind_lens, 3 };
	struct pq_options opts = { .zstd_level = 1, .threads = 2 };
	struct pq_column_data data[O__COUNT] = { 0 };
	struct label_lists ll = { 0 };
	struct pq_lists lists;
	struct pq_dict label_dict;
	struct pq_writer *w = NULL;
	void *val[O__COUNT] = { 0 };
	uint8_t *valid[O__COUNT] = { 0 };
	char freq_s[32];
	struct pq_kv kv[2] = { { META_SAMPLE_FREQ_HZ, freq_s },
			       { META_STACK_FORMAT, META_STACK_FORMAT_V1 } };
	int err = -ENOMEM;

	if (synth_names_count > 64)
		return -EINVAL;
	for (unsigned int i = 0; i < EV__COUNT; i++)
		et_lens[i] = (uint32_t)strlen(event_type_names[i]);
	for (unsigned int i = 0; i < synth_names_count; i++)
		name_lens[i] = (uint32_t)strlen(synth_names[i]);
	snprintf(freq_s, sizeof(freq_s), "%lu", freq);
	if ((err = label_lists__build(&ll, st)))
		goto cleanup;
	label_dict = (struct pq_dict){ ll.labels.strs, ll.labels.lens, ll.labels.n };
	lists = (struct pq_lists){ ll.offsets, ll.items, ll.n };
	err = -ENOMEM;
	for (int c = 0; c < O__COUNT; c++) {
		if (!(val[c] = malloc(group * ocol_size(ocols[c].type))))
			goto cleanup;
		if (!ocols[c].required && !(valid[c] = malloc(group)))
			goto cleanup;
		data[c].values = val[c];
		data[c].valid = valid[c];
	}
	data[O_ET].dict = &et_dict;
	data[O_NAME].dict = &name_dict;
	data[O_KIND].dict = &kind_dict;
	data[O_STACK].dict = &label_dict;
	data[O_STACK].lists = &lists;
	if ((err = pq_writer__open(&w, path, ocols, O__COUNT, &opts)))
		goto cleanup;
	for (uint64_t g0 = 0; g0 < n; g0 += group) {
		uint64_t gn = n - g0 < group ? n - g0 : group;

		for (uint64_t i = 0; i < gn; i++) {
			const struct synth_row *r = &s->rows[perm[g0 + i]];
			uint32_t c = r->cols;
			bool stack = c & SC_STACK;

			SET(O_ET, uint32_t, r->event_type);
			SET(O_TS, uint64_t, r->ts);
			SET(O_PID, uint32_t, r->pid);
			SET(O_TGID, uint32_t, r->tgid);
			SET(O_NAME, uint32_t, (c & SC_NAME) ? r->name : 0);
			VALID(O_NAME, c & SC_NAME);
			SET(O_SID, int32_t, r->stack_id);
			VALID(O_SID, (c & SC_STACK_IDS) && r->stack_id >= 0);
			SET(O_KSID, int32_t, r->kernel_stack_id);
			VALID(O_KSID, (c & SC_STACK_IDS) && r->kernel_stack_id >= 0);
			SET(O_KIND, uint32_t, stack && r->stack_kind != SK_NONE ? r->stack_kind - 1 : 0);
			VALID(O_KIND, stack && r->stack_kind != SK_NONE);
			SET(O_STACK, int32_t, stack ? r->stack : -1);
			VALID(O_STACK, stack);
			SET(O_CPU, uint8_t, r->cpu);
			SET(O_PREV, uint32_t, r->prev_pid);
			SET(O_NEXT, uint32_t, r->next_pid);
			SET(O_PSTATE, int64_t, r->prev_state);
			VALID(O_PREV, c & SC_SWITCH);
			VALID(O_NEXT, c & SC_SWITCH);
			VALID(O_PSTATE, c & SC_SWITCH);
			SET(O_PARENT, uint32_t, r->parent_pid);
			SET(O_CHILD, uint32_t, r->child_pid);
			VALID(O_PARENT, c & SC_FORK);
			VALID(O_CHILD, c & SC_FORK);
			SET(O_EXIT, int32_t, r->exit_code);
			VALID(O_EXIT, c & SC_EXIT);
			SET(O_ADDR, uint64_t, r->address);
			VALID(O_ADDR, c & SC_ADDRESS);
			SET(O_ERR, uint64_t, r->error_code);
			VALID(O_ERR, c & SC_ERROR_CODE);
			SET(O_FD, int64_t, r->fd);
			VALID(O_FD, c & SC_FD);
			SET(O_COUNT, uint64_t, r->count);
			VALID(O_COUNT, c & SC_COUNT);
			SET(O_RET, int64_t, r->ret);
			VALID(O_RET, c & SC_RET);
			SET(O_SUBMIT, uint64_t, r->submit_ts);
			SET(O_OPCODE, uint8_t, r->io_uring_opcode);
			SET(O_RES, int32_t, r->io_uring_res);
			VALID(O_SUBMIT, c & SC_URING);
			VALID(O_OPCODE, c & SC_URING);
			VALID(O_RES, c & SC_URING);
		}
		if ((err = pq_writer__write_row_group(w, (uint32_t)gn, data)))
			break;
	}
	if (err) {
		pq_writer__abort(w);
	} else {
		err = pq_writer__close(w, kv, 2);
	}
	if (err)
		log__error("synth: writing %s: %s", path, strerror(-err));
cleanup:
	for (int c = 0; c < O__COUNT; c++) {
		free(val[c]);
		free(valid[c]);
	}
	label_lists__free(&ll);
	return err;
}

int synth__write(const struct synth_opts *o)
{
	struct synth_params p = { .events = o->events, .seed = o->seed };
	uint64_t freq = o->sample_freq, dur_ms = o->duration_ms, lost = o->lost_ppm,
		 row_group = o->row_group_rows;
	const char *out = o->output;
	struct row_store store = { 0 };
	struct synth_stacks st;
	uint32_t *perm = NULL;
	char *tmp = NULL;
	double scale = 1.08;
	int64_t staged;
	uint64_t max_key = 0;
	int ret = -EIO;

	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	mallopt(M_TOP_PAD, 64 << 20);
	p.lost_ppm = (uint32_t)lost;
	p.duration_ns = dur_ms ? dur_ms * 1000000ull : (p.events ? p.events : 1) * 3000ull;
	synth_stacks__init(&st);
	if (asprintf(&tmp, "%s.tmp", out) < 0)
		goto cleanup;
	/* Threads end when their time runs out, so the row count is only known afterwards:
	 * simulate a little more than asked and keep the first N rows in file order. */
	for (int tries = 0;; tries++) {
		store.n = 0;
		store.jitter = (struct rng){ rng__mix(p.seed ^ 0x51ed) };
		staged = synth__simulate(&p, scale, &st, store__emit, &store);
		if (staged < 0) {
			log__error("synth: %s", strerror((int)-staged));
			goto cleanup;
		}
		if ((uint64_t)staged >= p.events)
			break;
		if (tries == 5) {
			log__error("synth: the workload model produced only %lld of %llu rows",
				   (long long)staged, (unsigned long long)p.events);
			goto cleanup;
		}
		scale *= 1.1 * (double)p.events / (double)(staged ? staged : 1);
	}
	if (!(perm = malloc(store.n * sizeof(*perm))))
		goto cleanup;
	for (uint64_t i = 0; i < store.n; i++) {
		perm[i] = (uint32_t)i;
		if (store.order[i] > max_key)
			max_key = store.order[i];
	}
	/* Stable: equal keys keep simulation order, as the staged sequence number did. */
	if (sort__radix_perm(store.order, perm, store.n, sort__bits(max_key)) ||
	    write_parquet(tmp, &store, perm, p.events, &st, freq, row_group))
		goto cleanup;
	if (rename(tmp, out)) {
		log__error("synth: cannot rename %s to %s: %s", tmp, out, strerror(errno));
		goto cleanup;
	}
	log__info("synth: wrote %s: %llu events, %zu distinct stacks", out,
		  (unsigned long long)p.events, st.n);
	ret = 0;
cleanup:
	if (ret && tmp)
		remove(tmp);
	free(tmp);
	synth_stacks__free(&st);
	free(store.rows);
	free(store.order);
	free(perm);
	return ret;
}
