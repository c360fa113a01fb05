/* Spool → Parquet.
 *
 * Pass 1 rebuilds the processes' address spaces (mmap side-band, exec, fork); pass 2
 * expands records into rows in DuckDB, interning stacks; then each unique stack is
 * labelled once and DuckDB joins, sorts and writes the file. */
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
#include "common/strbuf.h"
#include "record/spool.h"
#include "symbolize/addrspace.h"
#include "trace/duck.h"
#include "trace/finalize.h"
#include "trace/labels.h"
#include "trace/rowbuf.h"
#include "trace/rows.h"
#include "trace/schema.h"
#include "trace/stackset.h"

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif

struct finalizer {
	const struct finalize_opts *o;
	struct finalize_result *res;
	struct strbuf meta;		/* "key\tvalue\n" lines from the spool */
	struct addrspace *as;
	struct stackset *ustacks, *kstacks;
	duckdb_database db;
	duckdb_connection con;
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

static int pass1(struct finalizer *f)
{
	struct spool_reader *r;
	struct spool_item it;
	int n, err = 0;

	err = spool_reader__open(&r, f->o->spool);
	if (err) {
		log__error("%s: %s", f->o->spool,
			   err == -EBADMSG ? "not a probex spool" : strerror(-err));
		return err;
	}
	while ((n = spool_reader__next(r, &it)) > 0) {
		if (it.tag == SPOOL_SESSION || it.tag == SPOOL_END) {
			strbuf__add(&f->meta, it.data, it.len);
		} else if (it.tag == SPOOL_PERF) {
			err = sideband_add(f, it.data, it.len);
		} else if (it.tag == SPOOL_BPF && it.len >= sizeof(struct rec_fork)) {
			const struct rec_fork *fk = it.data;

			if (fk->h.kind == REC_FORK && fk->child_tgid != fk->h.tgid)
				err = addrspace__add_fork(f->as, fk->h.ts, fk->h.tgid, fk->child_tgid);
		}
		if (err)
			break;
	}
	if (n == -EBADMSG)
		f->res->torn_tail = 1;
	else if (n < 0 && !err)
		err = n;
	spool_reader__close(r);
	if (!err)
		err = addrspace__build(f->as);
	return err;
}

static int pass2(struct finalizer *f)
{
	struct spool_reader *r = NULL;
	struct rows *rows = NULL;
	struct spool_item it;
	int n, err;

	err = rows__open(&rows, f->con, f->as, f->ustacks, f->kstacks);
	if (err)
		return err;
	err = spool_reader__open(&r, f->o->spool);
	while (!err && (n = spool_reader__next(r, &it)) > 0) {
		if (it.tag != SPOOL_BPF)
			continue;
		f->res->records++;
		err = rows__add_record(rows, it.data, it.len);
	}
	spool_reader__close(r);
	f->res->bad_records = rows__bad_records(rows);
	f->res->rows = rows__count(rows);
	n = rows__close(rows, f->con);
	return err ? err : n;
}

static int write_stacks(struct finalizer *f, struct labeler *l, struct stackset *set,
			const char *table, bool user)
{
	static const struct col_def cols[] = { { "id", COL_I32 }, { "labels", COL_STR } };
	struct rowbuf *rb;
	struct strbuf s = { 0 };
	struct stack_entry e;
	int err;

	err = rowbuf__open(&rb, f->con, table, cols, 2);
	if (err)
		return err;
	for (uint32_t id = 0; !err && id < stackset__count(set); id++) {
		stackset__get(set, id, &e);
		s.len = 0;
		err = user ? labeler__user(l, &e, &s) : labeler__kernel(l, &e, &s);
		if (err)
			break;
		rowbuf__i64(rb, 0, id);
		/* Skip the leading separator. */
		rowbuf__str(rb, 1, s.s + 1, (uint32_t)(s.len - 1));
		err = rowbuf__next(rb);
		if (f->o->progress && user && id % 2000 == 1999)
			fprintf(stderr, "\rprobex: symbolizing stacks %u/%u", id + 1, stackset__count(set));
	}
	if (f->o->progress && user && stackset__count(set) >= 2000)
		fprintf(stderr, "\n");
	strbuf__free(&s);
	err = rowbuf__close(rb) ? -EIO : err;
	return err;
}

static int write_event_names(struct finalizer *f)
{
	static const struct col_def cols[] = { { "id", COL_U8 }, { "name", COL_STR } };
	struct rowbuf *rb;
	int err;

	err = rowbuf__open(&rb, f->con, "evnames", cols, 2);
	for (int i = 0; !err && i < EV__COUNT; i++) {
		rowbuf__u64(rb, 0, i);
		rowbuf__str(rb, 1, event_type_names[i], strlen(event_type_names[i]));
		err = rowbuf__next(rb);
	}
	return rb ? (rowbuf__close(rb) ? -EIO : err) : err;
}

/* KV_METADATA {...} from the spool's "key\tvalue" lines. */
static int metadata_sql(struct finalizer *f, struct strbuf *sql)
{
	char *save = NULL, *line, *copy = strdup(f->meta.s ? f->meta.s : "");
	bool first = true, have_end = false;
	char q[8192];

	if (!copy)
		return -ENOMEM;
	strbuf__add(sql, "KV_METADATA {", 13);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');

		if (!tab)
			continue;
		*tab = 0;
		if (!strcmp(line, META_EXIT_STATUS))
			have_end = true;
		if (duck__quote(q, sizeof(q), line))
			continue;
		strbuf__addf(sql, "%s%s: ", first ? "" : ", ", q);
		if (duck__quote(q, sizeof(q), tab + 1))
			strcpy(q, "''");
		strbuf__add(sql, q, strlen(q));
		first = false;
	}
	if (first) {
		/* A spool without its session header: still a file the viewer accepts. */
		strbuf__addf(sql, "'%s': '1999', '%s': '%s'", META_SAMPLE_FREQ_HZ, META_STACK_FORMAT,
			     META_STACK_FORMAT_V1);
		first = false;
	}
	if (!have_end)
		strbuf__add(sql, ", 'probex.incomplete': 'true'", 29);
	strbuf__add(sql, "}", 1);
	free(copy);
	return sql->err;
}

static int copy_out(struct finalizer *f, const char *tmp)
{
	struct strbuf sql = { 0 };
	char lit[8192];
	int err;

	err = duck__quote(lit, sizeof(lit), tmp);
	if (err)
		return err;
	/* Column order: the reference's 24, then ours. */
	strbuf__addf(&sql,
		     "COPY (SELECT n.name AS event_type, r.ts_ns, r.pid, r.tgid, c.name AS process_name, "
		     "r.ustack_id AS stack_id, r.kstack_id AS kernel_stack_id, "
		     "CASE WHEN u.labels IS NOT NULL AND k.labels IS NOT NULL THEN 'both' "
		     "WHEN u.labels IS NOT NULL THEN 'user' WHEN k.labels IS NOT NULL THEN 'kernel' END AS stack_kind, "
		     "CASE WHEN u.labels IS NULL AND k.labels IS NULL THEN NULL "
		     "ELSE list_concat(coalesce(u.labels, []::VARCHAR[]), coalesce(k.labels, []::VARCHAR[])) END AS stack_trace, "
		     "r.cpu, r.prev_pid, r.next_pid, r.prev_state, r.parent_pid, r.child_pid, r.exit_code, "
		     "r.address, r.error_code, r.fd, r.count, r.ret, r.submit_ts_ns, r.io_uring_opcode, "
		     "r.io_uring_res, r.latency_ns, r.stack_weight, r.child_tgid, r.is_thread, r.exit_signal, "
		     "r.prev_tgid, r.next_tgid, r.filename, r.mmap_prot, r.mmap_flags, r.mmap_fd, "
		     "r.io_uring_user_data "
		     "FROM raw r JOIN evnames n ON n.id = r.ev "
		     "LEFT JOIN comms c ON c.id = r.comm_id "
		     "LEFT JOIN (SELECT id, string_split(labels, chr(31)) AS labels FROM ustacks) u ON u.id = r.ustack_id "
		     "LEFT JOIN (SELECT id, string_split(labels, chr(31)) AS labels FROM kstacks) k ON k.id = r.kstack_id "
		     "ORDER BY r.ts_ns, r.pid, r.ev) TO %s (FORMAT parquet, COMPRESSION zstd, ",
		     lit);
	err = metadata_sql(f, &sql);
	strbuf__add(&sql, ")", 1);
	if (!err)
		err = sql.err ? sql.err : duck__exec(f->con, sql.s);
	strbuf__free(&sql);
	return err;
}

static int sync_path(const char *path, bool dir)
{
	int fd = open(path, (dir ? O_DIRECTORY : O_WRONLY) | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd))
		err = -errno;
	close(fd);
	return err;
}

int finalize__run(const struct finalize_opts *o, struct finalize_result *res)
{
	struct finalizer f = { .o = o, .res = res };
	struct labeler_stats ls;
	struct labeler *l = NULL;
	char tmp[4200], dir[4200], *slash;
	double t0 = now_s();
	int err = -ENOMEM;

	memset(res, 0, sizeof(*res));
	snprintf(tmp, sizeof(tmp), "%s.probex-tmp", o->output);
	f.as = addrspace__new();
	f.ustacks = stackset__new();
	f.kstacks = stackset__new();
	if (!f.as || !f.ustacks || !f.kstacks)
		goto cleanup;
	err = pass1(&f);
	if (err)
		goto cleanup;
	log__debug("finalize: address spaces %.3f s", now_s() - t0);
	err = duck__open_memory(&f.db, &f.con, o->threads);
	if (err)
		goto cleanup;
	err = pass2(&f);
	if (err)
		goto cleanup;
	log__debug("finalize: rows %.3f s", now_s() - t0);
	l = labeler__new(f.as, o->ksyms);
	if (!l) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = write_stacks(&f, l, f.ustacks, "ustacks", true);
	if (!err)
		err = write_stacks(&f, l, f.kstacks, "kstacks", false);
	if (!err)
		err = write_event_names(&f);
	if (err)
		goto cleanup;
	labeler__stats(l, &ls);
	res->unique_stacks = stackset__count(f.ustacks) + stackset__count(f.kstacks);
	res->frames_total = ls.user_frames;
	res->frames_symbolized = ls.user_symbolized;

	log__debug("finalize: stacks labelled %.3f s", now_s() - t0);
	unlink(tmp);
	err = copy_out(&f, tmp);
	log__debug("finalize: parquet written %.3f s", now_s() - t0);
	if (!err)
		err = sync_path(tmp, false);
	if (!err && rename(tmp, o->output))
		err = -errno;
	if (err) {
		log__error("cannot write %s: %s", o->output, strerror(-err == EIO ? EIO : -err));
		unlink(tmp);
		goto cleanup;
	}
	snprintf(dir, sizeof(dir), "%s", o->output);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	sync_path(slash ? dir : ".", true);
	if (res->bad_records)
		log__warn("%llu malformed records skipped", (unsigned long long)res->bad_records);
	if (res->torn_tail)
		log__warn("%s ends mid-record (writer was killed): kept everything before it", o->spool);
	res->seconds = now_s() - t0;
cleanup:
	labeler__free(l);
	if (f.con)
		duckdb_disconnect(&f.con);
	if (f.db)
		duckdb_close(&f.db);
	stackset__free(f.ustacks);
	stackset__free(f.kstacks);
	addrspace__free(f.as);
	strbuf__free(&f.meta);
	return err;
}
