/* `probex synth -o FILE [--events N] [--seed S] [--duration-ms MS] [--sample-freq HZ]
 * [--lost-ppm P]`: write a realistic synthetic trace with a recording's schema (the columns
 * of trace_schema, the same metadata keys), identical for the same arguments.  Rows are
 * simulated in C (synth_sim.c) thread by thread, one step at a time, merged by ts_ns as
 * they are produced (a recording is sorted so too) and written row group by row group by
 * probex's own Parquet writer (ZSTD, 2 threads): memory does not grow with the row count. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/outfile.h"
#include "parquet/colbuf.h"
#include "parquet/parquet.h"
#include "trace/schema.h"
#include "trace/stacknum.h"
#include "parquet/strtab.h"
#include "synth/synth.h"
#include "synth/synth_model.h"

/* One simulated thread's rows not yet written, sorted by (ts, emission order): rows[i..n). */
struct tbuf {
	struct synth_row *rows;
	uint32_t n, i, cap;
	uint64_t seq;
	bool done;
};

/* All threads merged by (ts, thread): a thread's rows are handed out in time order, and
 * equal times go in thread order (what a stable sort of the threads' rows, one thread
 * after another, gives). */
struct stream {
	struct synth_sim *sim;
	struct tbuf *tb;
	uint32_t *heap;
	unsigned int nth, live;
	uint64_t last_ts;
};

static int tbuf__emit(void *ctx, const struct synth_row *r)
{
	struct tbuf *b = ctx;
	uint32_t j;

	if (b->i && b->n == b->cap) {
		memmove(b->rows, b->rows + b->i, (b->n - b->i) * sizeof(*b->rows));
		b->n -= b->i;
		b->i = 0;
	}
	if (b->n == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 64;
		struct synth_row *rows = realloc(b->rows, cap * sizeof(*rows));

		if (!rows)
			return -ENOMEM;
		b->rows = rows;
		b->cap = cap;
	}
	/* Insert in order; rows come mostly in time order, so this rarely moves anything. */
	for (j = b->n; j > b->i && b->rows[j - 1].ts > r->ts; j--)
		b->rows[j] = b->rows[j - 1];
	b->rows[j] = *r;
	b->rows[j].order = b->seq++;
	b->n++;
	return 0;
}

/* Step thread t until its earliest pending row can no longer be preceded by a later step's
 * row (or the thread has ended). */
static int stream__refill(struct stream *st, unsigned int t)
{
	struct tbuf *b = &st->tb[t];
	int got;

	while (!b->done && (b->i == b->n || b->rows[b->i].ts > synth_sim__frontier(st->sim, t))) {
		got = synth_sim__step(st->sim, t, tbuf__emit, b);
		if (got < 0)
			return got;
		b->done = got == 0;
	}
	return 0;
}

static bool stream__less(const struct stream *st, uint32_t a, uint32_t b)
{
	uint64_t ta = st->tb[a].rows[st->tb[a].i].ts, tb = st->tb[b].rows[st->tb[b].i].ts;

	return ta < tb || (ta == tb && a < b);
}

static void stream__sift(struct stream *st, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, m = i;
		uint32_t t;

		if (l < st->live && stream__less(st, st->heap[l], st->heap[m]))
			m = l;
		if (l + 1 < st->live && stream__less(st, st->heap[l + 1], st->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = st->heap[i];
		st->heap[i] = st->heap[m];
		st->heap[m] = t;
		i = m;
	}
}

static void stream__free(struct stream *st)
{
	for (unsigned int i = 0; st->tb && i < st->nth; i++)
		free(st->tb[i].rows);
	free(st->tb);
	free(st->heap);
	synth_sim__free(st->sim);
	memset(st, 0, sizeof(*st));
}

static int stream__init(struct stream *st, const struct synth_params *p, double scale,
			struct synth_stacks *stacks)
{
	int err = synth_sim__new(&st->sim, p, scale, stacks);

	if (err)
		return err;
	st->nth = synth_sim__threads(st->sim);
	st->tb = calloc(st->nth, sizeof(*st->tb));
	st->heap = calloc(st->nth, sizeof(*st->heap));
	if (!st->tb || !st->heap)
		return -ENOMEM;
	for (unsigned int t = 0; t < st->nth && !err; t++) {
		err = stream__refill(st, t);
		if (!err && st->tb[t].i < st->tb[t].n)
			st->heap[st->live++] = t;
	}
	for (unsigned int i = st->live / 2; i-- > 0;)
		stream__sift(st, i);
	return err;
}

/* The next row in file order: 1 with *out set, 0 when every thread has ended. */
static int stream__next(struct stream *st, struct synth_row *out)
{
	unsigned int t;
	struct tbuf *b;
	int err;

	if (!st->live)
		return 0;
	t = st->heap[0];
	b = &st->tb[t];
	*out = b->rows[b->i++];
	if (out->ts < st->last_ts)
		return -EPROTO;		/* the model broke its frontier promise: not sorted */
	st->last_ts = out->ts;
	if ((err = stream__refill(st, t)))
		return err;
	if (b->i == b->n)
		st->heap[0] = st->heap[--st->live];
	stream__sift(st, 0);
	return 1;
}

/* The label dictionary and one list of label ids per synthetic stack. */
struct label_lists {
	struct intern labels;
	uint32_t *offsets, *items;
	uint32_t *mods;		/* stack_modules: 0 ("") for marks, 1 ("[synth]") for frames */
	uint32_t n, nitems, cap;
};

static const char *const synth_modules[] = { "", "[synth]" };
static const uint32_t synth_module_lens[] = { 0, 7 };
static const struct pq_dict synth_module_dict = { synth_modules, synth_module_lens, 2 };

static bool is_mark(const char *p, uint32_t len)
{
	return stack_mark__is(p, len, STACK_MARK_USER) || stack_mark__is(p, len, STACK_MARK_KERNEL) ||
	       stack_mark__is(p, len, STACK_MARK_TRUNCATED);
}

/* Add the lists of the stacks created since the last call (the simulation creates them
 * as it goes). */
static int label_lists__extend(struct label_lists *ll, const struct synth_stacks *st)
{
	uint32_t *off;

	if (st->n == ll->n)
		return 0;
	off = realloc(ll->offsets, (st->n + 1) * sizeof(*off));
	if (!off)
		return -ENOMEM;
	ll->offsets = off;
	if (!ll->n)
		off[0] = 0;
	for (size_t i = ll->n; i < st->n; i++) {
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
	intern__free(&ll->labels);
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
	m->kv[m->n++] = (struct pq_kv){ META_STACK_MODE, stack_mode_names[TRACE_STACKS_ALL] };
	m->kv[m->n++] = (struct pq_kv){ META_STACK_INTERVAL_NS, "0" };
	m->kv[m->n++] = (struct pq_kv){ META_USTACK_COPY, "0" };
	m->kv[m->n++] = (struct pq_kv){ META_STACK_WALK, "{}" };
	m->kv[m->n++] = (struct pq_kv){ META_MISSING_PROBES, "[]" };
	m->kv[m->n++] = (struct pq_kv){ META_EXIT_STATUS, "0" };
	m->kv[m->n++] = (struct pq_kv){ META_DROPS, "{}" };
	/* No exact counts: the rows are all there is (an empty array changes no figure). */
	m->kv[m->n++] = (struct pq_kv){ META_EXACT, "[]" };
	/* Descriptors followed, none open at the start (no row has a descriptor's path). */
	m->kv[m->n++] = (struct pq_kv){ META_FDS, "{}" };
}

/* One row into the current row group: the schema's columns, null where the row has none. */
static int fill_row(struct colbuf *c, struct bitset *seen, const struct synth_row *r)
{
	uint32_t f = r->cols;
	int err;

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
		if ((err = stacknum__set(c, seen, (uint32_t)r->stack)))
			return err;
		colbuf__set(c, TC_WEIGHT, 1);	/* as recorded with --stacks=all */
	}
	if (f & SR_SWITCH) {
		colbuf__set(c, TC_PREV_PID, r->prev_pid);
		colbuf__set(c, TC_NEXT_PID, r->next_pid);
		colbuf__set(c, TC_PREV_STATE, (uint64_t)r->prev_state);
		colbuf__set(c, TC_PREV_TGID, r->prev_tgid);
		colbuf__set(c, TC_NEXT_TGID, r->next_tgid);
	}
	if (f & SR_OFFCPU) {
		colbuf__set(c, TC_PREV_STATE, (uint64_t)r->prev_state);
		colbuf__set(c, TC_WAKER_PID, r->waker_pid);
		colbuf__set(c, TC_WAKER_TGID, r->waker_tgid);
		if (r->waker_pid && r->waker_name >= 0)
			colbuf__set(c, TC_WAKER_NAME, (uint32_t)r->waker_name);
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
	return 0;
}

struct writer {
	struct pq_writer *w;
	struct colbuf c;
	struct label_lists ll;
	struct bitset lists_seen;	/* lists with a row written (see trace/stacknum.h) */
	struct pq_lists lists, mod_lists;
	struct pq_dict label_dict, name_dict;
	uint32_t name_lens[64];
};

static int writer__open(struct writer *wr, const char *path, uint64_t n, uint64_t group)
{
	struct pq_options opts = { .zstd_level = 1, .threads = 2 };
	int err;

	memset(wr, 0, sizeof(*wr));
	if (synth_names_count > 64)
		return -EINVAL;
	for (unsigned int i = 0; i < synth_names_count; i++)
		wr->name_lens[i] = (uint32_t)strlen(synth_names[i]);
	wr->name_dict = (struct pq_dict){ synth_names, wr->name_lens, synth_names_count };
	if ((err = colbuf__init(&wr->c, trace_schema__pq_columns(), TC__COUNT,
				(uint32_t)(n < group ? (n ? n : 1) : group))))
		return err;
	colbuf__set_dict(&wr->c, TC_EVENT_TYPE, trace_schema__event_dict(), NULL);
	colbuf__set_dict(&wr->c, TC_STACK_KIND, &stack_kind_dict, NULL);
	colbuf__set_dict(&wr->c, TC_PROCESS_NAME, &wr->name_dict, NULL);
	colbuf__set_dict(&wr->c, TC_FILENAME, &wr->name_dict, NULL);	/* unused: no exec rows */
	colbuf__set_dict(&wr->c, TC_WAKER_NAME, &wr->name_dict, NULL);
	colbuf__set_dict(&wr->c, TC_STACK_TRACE, &wr->label_dict, &wr->lists);
	colbuf__set_dict(&wr->c, TC_STACK_MODULES, &synth_module_dict, &wr->mod_lists);
	colbuf__set_dict(&wr->c, TC_WAKER_STACK, &wr->label_dict, &wr->lists);	/* unused: no waker stacks */
	colbuf__set_dict(&wr->c, TC_PROBE_ARGS, &wr->name_dict, NULL);	/* unused: no probe rows */
	colbuf__set_dict(&wr->c, TC_ARGV, &wr->label_dict, &wr->lists);	/* unused: no exec rows */
	colbuf__set_dict(&wr->c, TC_FD_PATH, &wr->name_dict, NULL);	/* unused: no paths */
	return pq_writer__open(&wr->w, path, trace_schema__pq_columns(), TC__COUNT, &opts);
}

/* Write the rows gathered so far, with the stacks made up to now. */
static int writer__flush(struct writer *wr, const struct synth_stacks *st)
{
	int err = label_lists__extend(&wr->ll, st);

	if (err)
		return err;
	wr->label_dict = (struct pq_dict){ wr->ll.labels.strs, wr->ll.labels.lens, wr->ll.labels.n };
	wr->lists = (struct pq_lists){ wr->ll.offsets, wr->ll.items, wr->ll.n };
	wr->mod_lists = (struct pq_lists){ wr->ll.offsets, wr->ll.mods, wr->ll.n };
	return colbuf__flush(&wr->c, wr->w);
}

/* Close (kv != NULL) or abort, and free. */
static int writer__close(struct writer *wr, const struct synth_meta *m)
{
	int err = 0;

	if (m)
		err = pq_writer__close(wr->w, m->kv, m->n);
	else
		pq_writer__abort(wr->w);
	colbuf__free(&wr->c);
	label_lists__free(&wr->ll);
	bitset__free(&wr->lists_seen);
	memset(wr, 0, sizeof(*wr));
	return err;
}

/* Simulate and write the first p->events rows in file order into path; -EAGAIN, with
 * *produced rows made, when the model ran out before that (the caller simulates more). */
static int write_stream(const char *path, const struct synth_opts *o, const struct synth_params *p,
			double scale, struct synth_stacks *st, uint64_t *produced)
{
	struct stream s = { 0 };
	struct synth_meta meta;
	struct synth_row r = { 0 };	/* filled by stream__next; zeroed for -Wmaybe-uninitialized */
	struct writer wr;
	uint64_t n = 0, first_ts = 0;
	int err, got = 0;

	err = writer__open(&wr, path, p->events, o->row_group_rows);
	if (!err)
		err = stream__init(&s, p, scale, st);
	while (!err && n < p->events && (got = stream__next(&s, &r)) > 0) {
		if (!n++)
			first_ts = r.ts;
		err = fill_row(&wr.c, &wr.lists_seen, &r);
		if (!err && colbuf__next(&wr.c))
			err = writer__flush(&wr, st);
	}
	if (!err && got < 0)
		err = got;
	*produced = n;
	if (!err && n < p->events)
		err = -EAGAIN;
	if (!err)
		err = writer__flush(&wr, st);
	stream__free(&s);
	if (err) {
		writer__close(&wr, NULL);
		if (err != -EAGAIN)
			log__error("synth: writing %s: %s", path, err == -EPROTO ?
				   "the workload model went back in time" : strerror(-err));
		return err;
	}
	synth_meta__init(&meta, o, first_ts);
	err = writer__close(&wr, &meta);
	if (err)
		log__error("synth: writing %s: %s", path, strerror(-err));
	return err;
}

int synth__write(const struct synth_opts *o)
{
	struct synth_params p = { .events = o->events, .seed = o->seed };
	const char *out = o->output;
	struct synth_stacks st;
	uint64_t produced;
	char *tmp = NULL;
	double scale = 1.08;
	int ret = -EIO, err;

	p.lost_ppm = (uint32_t)o->lost_ppm;
	p.duration_ns = o->duration_ms ? o->duration_ms * 1000000ull : (p.events ? p.events : 1) * 3000ull;
	synth_stacks__init(&st);
	if (asprintf(&tmp, "%s" OUTFILE_TMP_SUFFIX, out) < 0) {
		tmp = NULL;
		goto cleanup;
	}
	/* Threads end when their time runs out, so the row count is only known afterwards:
	 * simulate a little more than asked and keep the first N rows in file order. */
	for (int tries = 0;; tries++) {
		err = write_stream(tmp, o, &p, scale, &st, &produced);
		if (err != -EAGAIN)
			break;
		if (tries == 5) {
			log__error("synth: the workload model produced only %llu of %llu rows",
				   (unsigned long long)produced, (unsigned long long)p.events);
			goto cleanup;
		}
		scale *= 1.1 * (double)p.events / (double)(produced ? produced : 1);
	}
	if (err)
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
	return ret;
}
