/* Spool → Parquet.
 *
 * Pass 1 rebuilds the processes' address spaces (mmap side-band, exec, fork) and reads the
 * JIT maps; pass 2 indexes every record's rows (stacks interned, copied user stacks
 * unwound, off-CPU rows joined with their switch's and waker's stacks), sorted as an
 * external merge (finalize/runs.h); then each unique stack is labelled once and the rows
 * are written row group by row group, each record read back from the spool by offset. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpf/records.h"
#include "common/log.h"
#include "common/outfile.h"
#include "common/strbuf.h"
#include "common/test_hooks.h"
#include "spool/spool.h"
#include "symbolize/addrspace.h"
#include "finalize/finalize.h"
#include "finalize/labels.h"
#include "parquet/parquet.h"
#include "finalize/rows.h"
#include "finalize/stacklists.h"
#include "finalize/symdata.h"
#include "trace/schema.h"
#include "finalize/stackset.h"
#include "finalize/unwind.h"
#include "finalize/jitmaps.h"
#include "finalize/pyframes.h"

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif

#define ROW_GROUP_ROWS (64u * 1024)

struct finalizer {
	const struct finalize_opts *o;
	struct finalize_result *res;
	struct spool_map map;
	struct strbuf meta;		/* "key\tvalue\n" lines from the spool */
	struct strbuf drops;		/* probex.drops with finalize's own counters added */
	struct labeler_stats ls;
	struct addrspace *as;
	struct stackset *ustacks, *kstacks;
	struct rows *rows;
	struct unwinder *unw;
	struct jitmaps *jit;
	struct pyframes *py;
	uint64_t jit_bad;		/* JIT map lines skipped as malformed */
	struct unwind_stats us;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* perf side-band records carry {pid, tid, time} at their end (sample_id_all). */
static uint64_t sb_time(const struct perf_event_header *h)
{
	uint64_t t;

	memcpy(&t, (const char *)h + h->size - 8, 8);
	return t;
}

static int sideband_add(struct finalizer *f, const struct perf_event_header *h, uint32_t len)
{
	const char *p = (const char *)h;

	if (len < sizeof(*h) || h->size > len || h->size < sizeof(*h) + 16)
		return 0;
	if (h->type == PERF_RECORD_MMAP2) {
		/* pid tid addr len pgoff {maj min ino gen | bid_size res res bid[20]} prot flags name */
		const size_t name_off = 8 + 8 + 24 + 24 + 8;
		uint32_t pid;
		uint64_t addr, mlen, pgoff;
		const unsigned char *bid = NULL;
		uint8_t bid_len = 0;
		char name[4096];
		size_t max;

		if (h->size < name_off + 16)
			return 0;
		memcpy(&pid, p + 8, 4);
		memcpy(&addr, p + 16, 8);
		memcpy(&mlen, p + 24, 8);
		memcpy(&pgoff, p + 32, 8);
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			bid_len = (uint8_t)p[40];
			if (bid_len > 20)
				bid_len = 20;
			bid = (const unsigned char *)p + 44;
		}
		max = h->size - 16 - name_off;
		if (max >= sizeof(name))
			max = sizeof(name) - 1;
		memcpy(name, p + name_off, max);
		name[max] = 0;
		return addrspace__add_mmap(f->as, sb_time(h), pid, addr, mlen, pgoff, name, bid, bid_len);
	}
	if (h->type == PERF_RECORD_COMM && (h->misc & PERF_RECORD_MISC_COMM_EXEC)) {
		uint32_t pid;

		memcpy(&pid, p + 8, 4);
		return addrspace__add_exec(f->as, sb_time(h), pid);
	}
	return 0;
}

static int pass1_item(struct finalizer *f, const struct spool_item *it)
{
	if (it->tag == SPOOL_SESSION || it->tag == SPOOL_END) {
		strbuf__add(&f->meta, it->data, it->len);
		return 0;
	}
	if (it->tag == SPOOL_PERF)
		return sideband_add(f, it->data, it->len);
	if (it->tag == SPOOL_PERFMAP)
		return jitmaps__add_item(f->jit, it->data, it->len);
	if (it->tag == SPOOL_PYCODE)
		return pyframes__add_item(f->py, it->data, it->len);
	if ((it->tag == SPOOL_BPF || it->tag == SPOOL_SIDE_BPF) && it->len >= sizeof(struct rec_fork)) {
		const struct rec_fork *fk = it->data;

		if (fk->h.kind == REC_FORK && fk->child_tgid != fk->h.tgid)
			return addrspace__add_fork(f->as, fk->h.ts, fk->h.tgid, fk->child_tgid);
	}
	return 0;
}

/* The items a clean close indexed, read where they are: the rows between them (nearly
 * all of the spool: a dd bs=1 spool of 4M events is 262 MB) are not read twice. */
static int pass1_indexed(struct finalizer *f, const uint64_t *offs, size_t n)
{
	struct spool_item it;
	int err = 0;

	for (size_t i = 0; !err && i < n; i++) {
		uint64_t off;

		memcpy(&off, &offs[i], sizeof(off));
		err = spool_map__item_at(&f->map, off, &it);
		err = err == 1 ? pass1_item(f, &it) : err;
	}
	return err;
}

/* Every item, in file order: a spool whose writer was killed has no index. */
static int pass1_scan(struct finalizer *f)
{
	struct spool_item it;
	int n, err;

	while ((n = spool_map__next(&f->map, &it)) > 0) {
		err = pass1_item(f, &it);
		if (err)
			return err;
	}
	if (n == -EBADMSG)
		f->res->torn_tail = 1;
	else if (n < 0)
		return n;
	return 0;
}

/* Pass 1: session facts, and the address spaces (mmap side-band, exec, fork). */
static int pass1(struct finalizer *f)
{
	uint64_t jit_entries;
	const uint64_t *offs;
	size_t nidx;
	int err;

	spool_map__index(&f->map, &offs, &nidx);
	if (nidx && !test_hooks__spool_scan()) {
		log__debug("finalize: %zu side items from the spool's index", nidx);
		err = pass1_indexed(f, offs, nidx);
	} else {
		log__debug("finalize: the spool scanned for its side items (no index)");
		err = pass1_scan(f);
	}
	if (!err)
		err = addrspace__build(f->as);
	if (!err)
		err = jitmaps__build(f->jit, f->as);
	pyframes__build(f->py);
	jitmaps__counts(f->jit, &jit_entries, &f->jit_bad);
	if (jit_entries || f->jit_bad)
		log__debug("finalize: JIT maps: %llu symbols, %llu lines skipped",
			   (unsigned long long)jit_entries, (unsigned long long)f->jit_bad);
	return err;
}

/* Pass 2: index every record's rows, interning stacks. */
static int pass2(struct finalizer *f)
{
	struct spool_item it;
	int n, err = 0;

	spool_map__rewind(&f->map);
	while (!err && (n = spool_map__next(&f->map, &it)) > 0)
		if (it.tag == SPOOL_BPF)
			err = rows__add_record(f->rows, it.data, it.len, it.off);
	return err;
}

/* A sample frequency the viewer accepts: a positive decimal of at most 19 digits. */
static bool freq_ok(const char *v)
{
	size_t n = strlen(v);

	return n && n <= 19 && strspn(v, "0123456789") == n && strspn(v, "0") != n;
}

/* The recorder's drop counters (a JSON object) plus the stack walks finalize cut. */
static const char *drops_value(struct finalizer *f, const char *rec)
{
	size_t n = strlen(rec);

	if (n < 2 || rec[0] != '{' || rec[n - 1] != '}')
		return rec;
	f->drops.len = 0;
	strbuf__add(&f->drops, rec, n - 1);
	strbuf__addf(&f->drops, "%s\"ustack_cut_outside_code\":%llu,\"unwind_copy_end\":%llu,"
		     "\"unwind_outside_objects\":%llu,\"unwind_no_cfi\":%llu,\"unwind_depth\":%llu,"
		     "\"unwind_no_copy\":%llu,\"jit_map_lines_skipped\":%llu}", n > 2 ? "," : "",
		     (unsigned long long)f->ls.user_cut_records, (unsigned long long)f->us.copy_end,
		     (unsigned long long)f->us.no_module, (unsigned long long)f->us.failed,
		     (unsigned long long)f->us.depth, (unsigned long long)f->us.no_copy,
		     (unsigned long long)f->jit_bad);
	return f->drops.err ? rec : f->drops.s;
}

/* Key-value metadata from the spool's "key\tvalue" lines (pointers into f->meta).  The
 * two keys the viewer requires are always present and valid, even when the session
 * header is missing or damaged: a recovered trace must open. */
static int metadata(struct finalizer *f, struct pq_kv *kv, int max)
{
	bool have_end = false, have_freq = false, have_format = false;
	int n = 0;
	char *line, *save = NULL;

	/* No session item at all (a recorder killed before its first flush): no text. */
	for (line = f->meta.s ? strtok_r(f->meta.s, "\n", &save) : NULL; line && n < max - 3;
	     line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');
		const char *val;

		if (!tab)
			continue;
		*tab = 0;
		val = tab + 1;
		if (!strcmp(line, META_EXIT_STATUS))
			have_end = true;
		if (!strcmp(line, META_SAMPLE_FREQ_HZ)) {
			if (have_freq || !freq_ok(val))
				continue;
			have_freq = true;
		}
		if (!strcmp(line, META_STACK_FORMAT)) {
			if (have_format)
				continue;
			have_format = true;
			val = META_STACK_FORMAT_V1;	/* finalize labels the stacks itself */
		}
		if (!strcmp(line, META_DROPS))
			val = drops_value(f, val);
		kv[n++] = (struct pq_kv){ line, val };
	}
	if (!have_freq) {
		if (f->meta.len)
			log__warn("%s: the session header has no valid sample frequency: assuming 1999 Hz",
				  f->o->spool);
		kv[n++] = (struct pq_kv){ META_SAMPLE_FREQ_HZ, "1999" };
	}
	if (!have_format)
		kv[n++] = (struct pq_kv){ META_STACK_FORMAT, META_STACK_FORMAT_V1 };
	if (!have_end)
		kv[n++] = (struct pq_kv){ "probex.incomplete", "true" };
	return n;
}

/* The rename is only durable once the directory is synced. */
static int sync_path(const char *path)
{
	int fd = open(path, O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd))
		err = -errno;
	close(fd);
	return err;
}

static void log_unwind(const struct unwind_stats *us)
{
	if (us->records)
		log__debug("finalize: %llu copied user stacks: whole %llu; ended at the copy's end %llu, "
			   "outside objects %llu, without CFI %llu, at the depth limit %llu; no copy %llu; "
			   "%llu walked by the kernel (in part or whole), %llu unwound from stack bytes; "
			   "%llu by cached CFI rules",
			   (unsigned long long)us->records, (unsigned long long)us->whole,
			   (unsigned long long)us->copy_end, (unsigned long long)us->no_module,
			   (unsigned long long)us->failed, (unsigned long long)us->depth,
			   (unsigned long long)us->no_copy, (unsigned long long)us->kernel_walk,
			   (unsigned long long)us->unwound, (unsigned long long)us->fast);
}

/* Index and sort the rows (unwinding copied stacks) while a thread labels the stacks
 * the indexer finds: they share only the stack sets, and on a C build labelling took
 * as long as indexing.  Without the thread, labelling follows indexing. */
static int index_and_label(struct finalizer *f, struct stacklists *sl, struct labeler *l,
			   const char *spill, double t0)
{
	struct stackfeed *feed = stackfeed__new();
	struct rows_stats rs;
	int err, lerr;

	if (feed) {
		stackset__share(f->ustacks, feed);
		stackset__share(f->kstacks, feed);
		if (stacklists__label_start(sl, l, f->ustacks, f->kstacks, feed, f->o->progress)) {
			stackset__share(f->ustacks, NULL);
			stackset__share(f->kstacks, NULL);
			stackfeed__free(feed);
			feed = NULL;
		}
	}
	f->unw = unwinder__new(f->as);
	err = f->unw ? 0 : -ENOMEM;
	if (!err) {
		rows__set_unwinder(f->rows, f->unw);
		err = pass2(f);
		unwinder__stats(f->unw, &f->us);
		log_unwind(&f->us);
	}
	if (!err)
		err = rows__sort(f->rows);
	if (err && err != -ENOMEM)
		/* Nothing written yet; the runs file (if any) went with its descriptor. */
		log__error("cannot sort the rows (sorted runs go to %s): %s", spill, strerror(-err));
	if (!err) {
		rows__stats(f->rows, &rs);
		log__debug("finalize: rows indexed and sorted %.3f s (%u runs spilled)", now_s() - t0,
			   rs.spilled_runs);
	}
	if (feed)
		lerr = stacklists__label_finish(sl);
	else
		lerr = err ? 0 : stacklists__label(sl, l, f->ustacks, f->kstacks, f->o->progress);
	stackset__share(f->ustacks, NULL);
	stackset__share(f->kstacks, NULL);
	stackfeed__free(feed);
	return err ? err : lerr;
}

#define TMP_NAME_MAX 4200

/* The spool mapped, and the names of the temporary output and of its sorted runs. */
static int open_spool(struct finalizer *f, char tmp[TMP_NAME_MAX], char spill[TMP_NAME_MAX + 20])
{
	int err;

	err = outfile__tmp_name(tmp, TMP_NAME_MAX, f->o->output);
	if (err) {
		log__error("%s: %s", f->o->output, strerror(-err));
		return err;
	}
	snprintf(spill, TMP_NAME_MAX + 20, "%s.runs", tmp);
	err = spool_map__open(&f->map, f->o->spool);
	if (err)
		log__error("%s: %s", f->o->spool,
			   err == -EBADMSG ? "not a probex spool" : strerror(-err));
	return err;
}

/* The stack sets, address spaces and the row store pass 1 fills. */
static int finalizer__setup(struct finalizer *f, struct stacklists **sl, const char *spill)
{
	struct rows_opts ro;
	int err;

	f->as = addrspace__new();
	f->ustacks = stackset__new();
	f->kstacks = stackset__new();
	f->jit = jitmaps__new();
	f->py = pyframes__new();
	if (!f->as || !f->jit || !f->py || !f->ustacks || !f->kstacks || stacklists__new(sl))
		return -ENOMEM;
	ro = (struct rows_opts){ .as = f->as, .ustacks = f->ustacks, .kstacks = f->kstacks,
				 .spool_path = f->o->spool, .spill_path = spill,
				 .run_rows = f->o->run_rows };
	err = rows__new(&f->rows, &ro);
	if (!err)
		rows__set_pyframes(f->rows, f->py);
	return err;
}

static void log_labels(const struct finalizer *f, double t0)
{
	const struct labeler_stats *ls = &f->ls;

	log__debug("finalize: %u+%u stacks labelled %.3f s; user frames %llu, named %llu, in a file "
		   "but unnamed %llu; kernel frames %llu, named %llu", stackset__count(f->ustacks),
		   stackset__count(f->kstacks), now_s() - t0, (unsigned long long)ls->user_frames,
		   (unsigned long long)ls->user_symbolized,
		   (unsigned long long)(ls->user_mapped - ls->user_symbolized),
		   (unsigned long long)ls->kernel_frames, (unsigned long long)ls->kernel_symbolized);
	log__debug("finalize: %llu user stacks (%llu records) cut where a frame left code",
		   (unsigned long long)ls->user_cut_stacks, (unsigned long long)ls->user_cut_records);
	log__debug("finalize: objects %llu opened (%llu indexed), %llu failed; %llu frames of "
		   "files changed since recording", (unsigned long long)ls->objects,
		   (unsigned long long)ls->objects_indexed, (unsigned long long)ls->objects_failed,
		   (unsigned long long)ls->build_id_mismatch);
	if (ls->build_id_mismatch)
		log__warn("%llu stack frames left unnamed: their binary changed on disk since it ran",
			  (unsigned long long)ls->build_id_mismatch);
}

/* The rows, then the footer with the metadata and symbol data, into tmp. */
static int write_trace(struct finalizer *f, struct stacklists *sl, struct labeler *l,
		       const char *tmp)
{
	struct pq_options po = { .zstd_level = 1, .threads = f->o->threads > 0 ? f->o->threads : 2 };
	char *symdata = NULL, *symstats = NULL;
	struct pq_writer *w = NULL;
	struct pq_kv kv[64];
	int err, nkv;

	err = pq_writer__open(&w, tmp, trace_schema__pq_columns(), TC__COUNT, &po);
	if (err) {
		/* Not ours to remove: a file (or symlink) someone left at the temporary name. */
		log__error("cannot create %s: %s%s", tmp, strerror(-err),
			   err == -EEXIST ? " (left by an interrupted probex? remove it)" : "");
		return err;
	}
	err = rows__write(f->rows, w, sl, ROW_GROUP_ROWS);
	symdata = symdata__encode(f->as, f->ustacks, f->kstacks, labeler__jit_used(l));
	symstats = labeler__stats_json(&f->ls);
	if (!err && (!symdata || !symstats))
		err = -ENOMEM;
	if (err) {
		pq_writer__abort(w);	/* unlinks tmp */
	} else {
		nkv = metadata(f, kv, 62);
		kv[nkv++] = (struct pq_kv){ META_SYMBOL_DATA, symdata };
		kv[nkv++] = (struct pq_kv){ META_SYMBOLIZE, symstats };
		err = pq_writer__close(w, kv, nkv);	/* fsyncs; unlinks on error */
	}
	if (err)
		log__error("cannot write %s: %s", f->o->output, strerror(-err));
	free(symdata);
	free(symstats);
	return err;
}

/* A renamed file is durable once its directory is synced. */
static void sync_dir_of(const char *path)
{
	char dir[4200], *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	sync_path(slash ? dir : ".");
}

static void fill_result(struct finalizer *f, double t0)
{
	struct finalize_result *res = f->res;
	struct rows_stats rs;

	rows__stats(f->rows, &rs);
	res->rows = rs.rows;
	res->records = rs.records;
	res->bad_records = rs.bad_records;
	res->spilled_runs = rs.spilled_runs;
	res->unique_stacks = stackset__count(f->ustacks) + stackset__count(f->kstacks);
	res->frames_total = f->ls.user_frames;
	res->frames_symbolized = f->ls.user_symbolized;
	if (res->bad_records)
		log__warn("%llu malformed records skipped", (unsigned long long)res->bad_records);
	if (res->torn_tail)
		log__warn("%s ends mid-record (writer was killed): kept everything before it",
			  f->o->spool);
	res->seconds = now_s() - t0;
}

static void finalizer__free(struct finalizer *f)
{
	rows__free(f->rows);
	unwinder__free(f->unw);
	jitmaps__free(f->jit);
	pyframes__free(f->py);
	stackset__free(f->ustacks);
	stackset__free(f->kstacks);
	addrspace__free(f->as);
	strbuf__free(&f->meta);
	strbuf__free(&f->drops);
	spool_map__close(&f->map);
}

int finalize__run(const struct finalize_opts *o, struct finalize_result *res)
{
	struct finalizer f = { .o = o, .res = res };
	struct stacklists *sl = NULL;
	struct labeler *l = NULL;
	char tmp[TMP_NAME_MAX], spill[TMP_NAME_MAX + 20];
	double t0 = now_s();
	int err;

	memset(res, 0, sizeof(*res));
	err = open_spool(&f, tmp, spill);
	if (err)
		return err;
	err = finalizer__setup(&f, &sl, spill);
	if (!err)
		err = pass1(&f);
	if (!err)
		err = rows__set_probes(f.rows, f.meta.s);
	if (err)
		goto cleanup;
	log__debug("finalize: address spaces %.3f s", now_s() - t0);
	l = labeler__new(f.as, o->ksyms);
	if (!l) {
		err = -ENOMEM;
		goto cleanup;
	}
	labeler__set_jitmaps(l, f.jit);
	labeler__set_pyframes(l, f.py);
	err = index_and_label(&f, sl, l, spill, t0);
	if (err)
		goto cleanup;
	labeler__stats(l, &f.ls);
	log_labels(&f, t0);
	err = write_trace(&f, sl, l, tmp);
	if (err)
		goto cleanup;
	err = outfile__commit(tmp, o->output, o->force);
	if (err) {
		unlink(tmp);
		goto cleanup;
	}
	log__debug("finalize: parquet written %.3f s", now_s() - t0);
	sync_dir_of(o->output);
	fill_result(&f, t0);
cleanup:
	labeler__free(l);
	stacklists__free(sl);
	finalizer__free(&f);
	return err;
}
