/* `probex synth -o FILE [--events N] [--seed S] [--duration-ms MS] [--sample-freq HZ]
 * [--lost-ppm P]`: write a realistic synthetic trace with a recording's schema (the columns
 * of trace_schema, the same metadata keys), identical for the same arguments.  Rows are
 * simulated in C (synth_sim.c), kept in memory, sorted by ts_ns as finalize sorts a
 * recording, and written by probex's own Parquet writer (ZSTD, 2 threads). */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/records.h"
#include "common/log.h"
#include "common/outfile.h"
#include "common/sort.h"
#include "parquet/colbuf.h"
#include "parquet/parquet.h"
#include "trace/schema.h"
#include "parquet/strtab.h"
#include "synth/synth.h"
#include "synth/synth_model.h"

/* Every simulated row, kept until they are sorted into file order. */
struct row_store {
	struct synth_row *rows;
	uint64_t *order;	/* sort key: ts */
	uint64_t n, cap;
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
	/* Files are sorted by ts_ns, as recordings are (finalize sorts the ring-buffer order). */
	s->order[s->n] = r->ts;
	s->rows[s->n++] = *r;
	return 0;
}

/* The label dictionary and one list of label ids per synthetic stack. */
struct label_lists {
	struct strtab labels;
	uint32_t *offsets, *items;
	uint32_t *mods;		/* stack_modules: 0 ("") for marks, 1 ("[synth]") for frames */
	uint32_t n, nitems, cap;
};

static const char *const synth_modules[] = { "", "[synth]" };
static const uint32_t synth_module_lens[] = { 0, 7 };
static const struct pq_dict synth_module_dict = { synth_modules, synth_module_lens, 2 };

static bool is_mark(const char *p, uint32_t len)
{
	return (len == 6 && !memcmp(p, "[user]", 6)) || (len == 8 && !memcmp(p, "[kernel]", 8)) ||
	       (len == 11 && !memcmp(p, "[truncated]", 11));
}

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
				items = realloc(ll->mods, cap * sizeof(*items));
				if (!items)
					return -ENOMEM;
				ll->mods = items;
				ll->cap = cap;
			}
			ll->mods[ll->nitems] = !is_mark(p, len);
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
	free(ll->mods);
}

/* The metadata keys a recording carries (but probex.symbol_data: synthetic stacks have no
 * binaries to resymbolize from), with synthetic values. */
struct synth_meta {
	struct pq_kv kv[24];
	int n;
	char freq[24], command[160], start_ts[24], start_unix[24], boot_unix[24];
};

static void synth_meta__init(struct synth_meta *m, const struct synth_opts *o, uint64_t start_ts)
{
	/* A fixed wall clock (2026-01-01T00:00:00Z) keeps equal options giving equal files. */
	const uint64_t start_unix = 1767225600ull * 1000000000ull;

	snprintf(m->freq, sizeof(m->freq), "%llu", (unsigned long long)o->sample_freq);
	snprintf(m->command, sizeof(m->command),
		 "[\"probex\",\"synth\",\"--events\",\"%llu\",\"--seed\",\"%llu\"]",
		 (unsigned long long)o->events, (unsigned long long)o->seed);
	snprintf(m->start_ts, sizeof(m->start_ts), "%llu", (unsigned long long)start_ts);
	snprintf(m->start_unix, sizeof(m->start_unix), "%llu", (unsigned long long)start_unix);
	snprintf(m->boot_unix, sizeof(m->boot_unix), "%llu",
		 (unsigned long long)(start_unix - start_ts));
	m->n = 0;
	m->kv[m->n++] = (struct pq_kv){ META_SAMPLE_FREQ_HZ, m->freq };
	m->kv[m->n++] = (struct pq_kv){ META_STACK_FORMAT, META_STACK_FORMAT_V1 };
	m->kv[m->n++] = (struct pq_kv){ META_VERSION, PROBEX_VERSION };
	m->kv[m->n++] = (struct pq_kv){ META_COMMAND, m->command };
	m->kv[m->n++] = (struct pq_kv){ META_START_TS, m->start_ts };
	m->kv[m->n++] = (struct pq_kv){ META_START_WALLCLOCK, m->start_unix };
	m->kv[m->n++] = (struct pq_kv){ META_BOOT_WALLCLOCK, m->boot_unix };
	m->kv[m->n++] = (struct pq_kv){ META_ROOT_PID, "1000" };
	m->kv[m->n++] = (struct pq_kv){ META_HOSTNAME, "synth" };
	m->kv[m->n++] = (struct pq_kv){ META_KERNEL, "synthetic" };
	m->kv[m->n++] = (struct pq_kv){ META_STACK_MODE, stack_mode_names[STACKS_ALL] };
	m->kv[m->n++] = (struct pq_kv){ META_STACK_INTERVAL_NS, "0" };
	m->kv[m->n++] = (struct pq_kv){ META_USTACK_COPY, "0" };
	m->kv[m->n++] = (struct pq_kv){ META_MISSING_PROBES, "[]" };
	m->kv[m->n++] = (struct pq_kv){ META_EXIT_STATUS, "0" };
	m->kv[m->n++] = (struct pq_kv){ META_DROPS, "{}" };
}

/* One row into the current row group: the schema's columns, null where the row has none. */
static void fill_row(struct colbuf *c, const struct synth_row *r)
{
	uint32_t f = r->cols;

	colbuf__set(c, TC_EVENT_TYPE, r->event_type);
	colbuf__set(c, TC_TS, r->ts);
	colbuf__set(c, TC_PID, r->pid);
	colbuf__set(c, TC_TGID, r->tgid);
	colbuf__set(c, TC_CPU, r->cpu);
	if (f & SR_NAME)
		colbuf__set(c, TC_PROCESS_NAME, (uint32_t)r->name);
	if ((f & SR_STACK_IDS) && r->stack_id >= 0)
		colbuf__set(c, TC_STACK_ID, (uint32_t)r->stack_id);
	if ((f & SR_STACK_IDS) && r->kernel_stack_id >= 0)
		colbuf__set(c, TC_KSTACK_ID, (uint32_t)r->kernel_stack_id);
	if ((f & SR_STACK) && r->stack_kind != SK_NONE)
		colbuf__set(c, TC_STACK_KIND, r->stack_kind - 1);
	if (f & SR_STACK) {
		colbuf__set(c, TC_STACK_TRACE, (uint32_t)r->stack);
		colbuf__set(c, TC_STACK_MODULES, (uint32_t)r->stack);
		colbuf__set(c, TC_WEIGHT, 1);	/* as recorded with --stacks=all */
	}
	if (f & SR_SWITCH) {
		colbuf__set(c, TC_PREV_PID, r->prev_pid);
		colbuf__set(c, TC_NEXT_PID, r->next_pid);
		colbuf__set(c, TC_PREV_STATE, (uint64_t)r->prev_state);
		colbuf__set(c, TC_PREV_TGID, r->prev_tgid);
		colbuf__set(c, TC_NEXT_TGID, r->next_tgid);
	}
	if (f & SR_FORK) {
		colbuf__set(c, TC_PARENT_PID, r->parent_pid);
		colbuf__set(c, TC_CHILD_PID, r->child_pid);
		colbuf__set(c, TC_CHILD_TGID, r->child_tgid);
	}
	if (f & SR_EXIT)
		colbuf__set(c, TC_EXIT_CODE, (uint32_t)r->exit_code);
	if (f & (SR_FORK | SR_EXIT))
		colbuf__set(c, TC_IS_THREAD, r->is_thread);
	if (f & SR_ADDRESS)
		colbuf__set(c, TC_ADDRESS, r->address);
	if (f & SR_ERROR_CODE)
		colbuf__set(c, TC_ERROR_CODE, r->error_code);
	if (f & SR_FD)
		colbuf__set(c, TC_FD, (uint64_t)r->fd);
	if (f & SR_COUNT)
		colbuf__set(c, TC_COUNT, r->count);
	if (f & SR_RET)
		colbuf__set(c, TC_RET, (uint64_t)r->ret);
	if (f & SR_URING) {
		colbuf__set(c, TC_SUBMIT_TS, r->submit_ts);
		colbuf__set(c, TC_IOU_OPCODE, r->io_uring_opcode);
		colbuf__set(c, TC_IOU_RES, (uint32_t)r->io_uring_res);
	}
	if (f & SR_LATENCY)
		colbuf__set(c, TC_LATENCY, r->latency);
}

/* Write rows perm[0..n) in row groups of group rows. */
static int write_parquet(const char *path, const struct row_store *s, const uint32_t *perm,
			 uint64_t n, const struct synth_stacks *st, const struct synth_meta *m,
			 uint64_t group)
{
	uint32_t name_lens[64];
	struct pq_dict name_dict = { synth_names, name_lens, synth_names_count };
	struct pq_options opts = { .zstd_level = 1, .threads = 2 };
	struct label_lists ll = { 0 };
	struct pq_lists lists, mod_lists;
	struct pq_dict label_dict;
	struct pq_writer *w = NULL;
	struct colbuf c = { 0 };
	int err;

	if (synth_names_count > 64)
		return -EINVAL;
	for (unsigned int i = 0; i < synth_names_count; i++)
		name_lens[i] = (uint32_t)strlen(synth_names[i]);
	if ((err = label_lists__build(&ll, st)))
		goto cleanup;
	label_dict = (struct pq_dict){ ll.labels.strs, ll.labels.lens, ll.labels.n };
	lists = (struct pq_lists){ ll.offsets, ll.items, ll.n };
	mod_lists = (struct pq_lists){ ll.offsets, ll.mods, ll.n };
	if ((err = colbuf__init(&c, trace_schema__pq_columns(), TC__COUNT,
				(uint32_t)(n < group ? (n ? n : 1) : group))))
		goto cleanup;
	colbuf__set_dict(&c, TC_EVENT_TYPE, trace_schema__event_dict(), NULL);
	colbuf__set_dict(&c, TC_STACK_KIND, &stack_kind_dict, NULL);
	colbuf__set_dict(&c, TC_PROCESS_NAME, &name_dict, NULL);
	colbuf__set_dict(&c, TC_FILENAME, &name_dict, NULL);	/* unused: no exec rows */
	colbuf__set_dict(&c, TC_STACK_TRACE, &label_dict, &lists);
	colbuf__set_dict(&c, TC_STACK_MODULES, &synth_module_dict, &mod_lists);
	colbuf__set_dict(&c, TC_WAKER_STACK, &label_dict, &lists);	/* unused: no off_cpu rows */
	if ((err = pq_writer__open(&w, path, trace_schema__pq_columns(), TC__COUNT, &opts)))
		goto cleanup;
	for (uint64_t i = 0; i < n && !err; i++) {
		fill_row(&c, &s->rows[perm[i]]);
		if (colbuf__next(&c))
			err = colbuf__flush(&c, w);
	}
	if (!err)
		err = colbuf__flush(&c, w);
	if (err) {
		pq_writer__abort(w);
	} else {
		err = pq_writer__close(w, m->kv, m->n);
	}
	if (err)
		log__error("synth: writing %s: %s", path, strerror(-err));
cleanup:
	colbuf__free(&c);
	label_lists__free(&ll);
	return err;
}

int synth__write(const struct synth_opts *o)
{
	struct synth_params p = { .events = o->events, .seed = o->seed };
	uint64_t dur_ms = o->duration_ms, lost = o->lost_ppm,
		 row_group = o->row_group_rows;
	const char *out = o->output;
	struct row_store store = { 0 };
	struct synth_meta meta;
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
	if (asprintf(&tmp, "%s" OUTFILE_TMP_SUFFIX, out) < 0)
		goto cleanup;
	/* Threads end when their time runs out, so the row count is only known afterwards:
	 * simulate a little more than asked and keep the first N rows in file order. */
	for (int tries = 0;; tries++) {
		store.n = 0;
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
	if (sort__radix_perm(store.order, perm, store.n, sort__bits(max_key)))
		goto cleanup;
	synth_meta__init(&meta, o, store.n ? store.rows[perm[0]].ts : 0);
	if (write_parquet(tmp, &store, perm, p.events, &st, &meta, row_group))
		goto cleanup;
	/* The writer removed tmp on its own failures (and never touches one it did not create). */
	if (outfile__commit(tmp, out, o->force)) {
		unlink(tmp);
		goto cleanup;
	}
	log__info("synth: wrote %s: %llu events, %zu distinct stacks", out,
		  (unsigned long long)p.events, st.n);
	ret = 0;
cleanup:
	free(tmp);
	synth_stacks__free(&st);
	free(store.rows);
	free(store.order);
	free(perm);
	return ret;
}
