#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bpf/unwind.h"
#include "common/hmap.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "record/probes.h"
#include "record/progs.h"
#include "record/unwload.h"
#include "symbolize/strmap.h"
#include "symbolize/symcache.h"
#include "symbolize/unwtab.h"
#include "trace/schema.h"

_Static_assert(sizeof(struct unw_row) == sizeof(struct unwtab_row) &&
	       sizeof(struct unw_rule) == sizeof(struct unwtab_rule), "the kernel's table layout");
_Static_assert((int)UNW_NONE == (int)UNWTAB_NONE && (int)UNW_CFA_SP == (int)UNWTAB_CFA_SP &&
	       (int)UNW_CFA_BP == (int)UNWTAB_CFA_BP && (int)UNW_END == (int)UNWTAB_END &&
	       (int)UNW_BP_AT == (int)UNWTAB_BP_AT && (int)UNW_BP_UNDEF == (int)UNWTAB_BP_UNDEF,
	       "the kernel's rule kinds");
_Static_assert(UNW_END__COUNT <= 8, "unwload_stats.walk_end");

enum job_kind { JOB_MAP, JOB_EXEC, JOB_FORK, JOB_EXIT };

struct job {
	uint8_t kind;
	uint32_t pid, parent;
	uint64_t start, len, pgoff;
	char *path;		/* JOB_MAP of a file; NULL: anonymous or special code */
	uint8_t bid[20];	/* the mapped file's build-id, as the kernel read it */
	uint8_t bid_len;
};

/* A loadable segment: where the table's link-time addresses come from. */
struct seg {
	uint64_t off, vaddr, filesz;
};

struct object {
	bool ok;
	uint8_t bid_len;
	uint8_t bid[20];
	uint32_t first, count;
	struct seg *segs;
	uint32_t nsegs;
};

struct unwload {
	int rows_fd, rules_fd, procs_fd, stats_fd;
	struct unw_row *rows;
	struct unw_rule *rules;
	uint32_t rows_cap, rules_cap, nrows, nrules;
	struct hmap rule_ids;		/* rule bits -> global rule id */
	struct strmap paths;		/* path -> index in objs */
	struct object *objs;
	uint32_t nobjs, cap_objs;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *q;
	uint32_t qhead, qlen, qcap;
	bool stop;
	pthread_t thread;
	struct unwload_stats st;
};

static void *map_mmap(int fd, uint32_t entries, size_t elem)
{
	size_t sz = ((size_t)entries * elem + 4095) & ~(size_t)4095;
	void *p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

static uint32_t map_entries(int fd)
{
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.max_entries;
}

/* --- objects: tables built once per path, their rules shared --- */

static uint64_t rule_bits(const struct unwtab_rule *r)
{
	return (uint64_t)(uint32_t)r->cfa_off << 32 | (uint64_t)(uint16_t)r->bp_off << 16 |
	       (uint64_t)r->kind << 8 | r->bp;
}

/* t's rules as global ids into ids[] (rule 0 stays 0); false when the rules map is full. */
static bool rules_load(struct unwload *l, const struct unwtab *t, uint32_t *ids)
{
	ids[0] = 0;
	for (uint32_t i = 1; i < t->nrules; i++) {
		uint64_t key = rule_bits(&t->rules[i]);

		if (hmap__get(&l->rule_ids, key, &ids[i]))
			continue;
		if (l->nrules >= l->rules_cap || hmap__put(&l->rule_ids, key, l->nrules))
			return false;
		memcpy(&l->rules[l->nrules], &t->rules[i], sizeof(t->rules[i]));
		ids[i] = l->nrules++;
	}
	return true;
}

static void segs_read(Elf *elf, struct object *o)
{
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum) || !(o->segs = calloc(phnum ? phnum : 1, sizeof(*o->segs))))
		return;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		/* Executable ones only: a mapping's first page can also hold the end of the
		 * read-only segment before (lld's layout), which would give another bias. */
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			o->segs[o->nsegs++] = (struct seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
}

#define VDSO_NAME "[vdso]"

/* The vdso: every process's is the kernel's one image, as mapped into ours.  Its size is
 * up to the end of its section headers, which come last. */
static Elf *vdso_elf(void)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return NULL;
	return elf_memory((char *)eh, eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize);
}

/* Which builder made a cached table: bumped when the rows it gives change. */
#define UNW_CACHE_PROV "unwtab 1"

/* elf's table: from the symbol cache's directory when an entry for its build-id is
 * there (libc's takes 40 ms to build), else built and stored. */
static int table_of(struct unwload *l, Elf *elf, const void *id, ssize_t id_len, struct unwtab *t)
{
	void *b = NULL;
	size_t len;
	int err;

	if (id_len > 0 && (b = symcache__blob_load(id, (int)id_len, "unw", UNW_CACHE_PROV, &len)) &&
	    !unwtab__decode(b, len, t)) {
		free(b);
		l->st.cached++;
		return 0;
	}
	free(b);
	err = unwtab__build(elf, t);
	if (!err && id_len > 0 && !unwtab__encode(t, &b, &len)) {
		symcache__blob_store(id, (int)id_len, "unw", UNW_CACHE_PROV, b, len);
		free(b);
	}
	return err;
}

/* Build path's table into the rows map. */
static void object_build(struct unwload *l, struct object *o, const char *path)
{
	struct unwtab t = { 0 };
	uint32_t *ids = NULL;
	bool vdso = !strcmp(path, VDSO_NAME);
	int fd = vdso ? -1 : open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = vdso ? vdso_elf() : fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;

	const void *id = NULL;
	ssize_t id_len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;

	if (id_len > 0 && id_len <= (ssize_t)sizeof(o->bid)) {
		memcpy(o->bid, id, (size_t)id_len);
		o->bid_len = (uint8_t)id_len;
	}
	if (!elf || table_of(l, elf, id, id_len, &t)) {
		l->st.no_table++;
		goto out;
	}
	segs_read(elf, o);
	ids = malloc(t.nrules * sizeof(*ids));
	if (!ids || t.nrows > l->rows_cap - l->nrows || !rules_load(l, &t, ids)) {
		l->st.rows_full += !!ids;
		goto out;
	}
	for (uint32_t i = 0; i < t.nrows; i++)
		l->rows[l->nrows + i] = (struct unw_row){ t.rows[i].pc, ids[t.rows[i].rule] };
	o->first = l->nrows;
	o->count = t.nrows;
	o->ok = true;
	l->nrows += t.nrows;
	l->st.rows += t.nrows;
	l->st.objects++;
out:
	free(ids);
	unwtab__free(&t);
	elf_end(elf);
	if (fd >= 0)
		close(fd);
}

static struct object *object_of(struct unwload *l, const char *path)
{
	size_t n = strlen(path);
	uint64_t idx, t0;
	struct timespec ts;

	if (strmap__get(&l->paths, path, n, &idx))
		return &l->objs[idx];
	if (l->nobjs == l->cap_objs) {
		uint32_t cap = l->cap_objs ? l->cap_objs * 2 : 64;
		struct object *p = realloc(l->objs, cap * sizeof(*p));

		if (!p)
			return NULL;
		l->objs = p;
		l->cap_objs = cap;
	}
	if (!strmap__put(&l->paths, path, n, l->nobjs))
		return NULL;
	l->objs[l->nobjs] = (struct object){ 0 };
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec * 1000000000ull + ts.tv_nsec;
	object_build(l, &l->objs[l->nobjs], path);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec * 1000000000ull + ts.tv_nsec - t0;
	l->st.build_ns += t0;
	log__debug("stack walk: %s: %u rows in %.3f s", path, l->objs[l->nobjs].count, t0 / 1e9);
	return &l->objs[l->nobjs++];
}

/* Runtime minus link-time address for a mapping of o at start from file offset pgoff. */
static bool object_bias(const struct object *o, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	for (uint32_t i = 0; i < o->nsegs; i++) {
		const struct seg *s = &o->segs[i];

		if (pgoff >= (s->off & ~0xfffull) && pgoff < s->off + s->filesz) {
			*bias = start - pgoff + s->off - s->vaddr;
			return true;
		}
	}
	return false;
}

/* --- processes: their mappings in the process map --- */

/* Mapping [start, end) of p replaced by m (m NULL: only removed). */
static bool proc_put(struct unw_proc *p, uint64_t start, uint64_t end, const struct unw_map *m)
{
	uint32_t k = 0, at;

	for (uint32_t i = 0; i < p->n && i < UNW_PROC_MAPS; i++)
		if (p->m[i].end <= start || p->m[i].start >= end)
			p->m[k++] = p->m[i];
	p->n = k;
	if (!m)
		return true;
	if (p->n >= UNW_PROC_MAPS)
		return false;
	for (at = 0; at < p->n && p->m[at].start < m->start; at++)
		;
	memmove(&p->m[at + 1], &p->m[at], (p->n - at) * sizeof(p->m[0]));
	p->m[at] = *m;
	p->n++;
	return true;
}

static void job_map(struct unwload *l, const struct job *j)
{
	struct unw_proc p = { 0 };
	struct unw_map m = { j->start, j->start + j->len, 0, 0, 0 };
	struct object *o = j->path ? object_of(l, j->path) : NULL;
	uint64_t bias = 0;
	bool have = o && o->ok && object_bias(o, j->start, j->pgoff, &bias);

	/* The file at that path now is not the one mapped (another mount namespace, a
	 * rebuilt binary): its table would invent frames. */
	if (have && j->bid_len && (j->bid_len != o->bid_len || memcmp(j->bid, o->bid, j->bid_len))) {
		l->st.other_file++;
		have = false;
	}

	if (bpf_map_lookup_elem(l->procs_fd, &j->pid, &p) && !have)
		return;
	if (have) {
		m.bias = bias;
		m.first = o->first;
		m.count = o->count;
	}
	if (!proc_put(&p, m.start, m.end, have ? &m : NULL))
		l->st.maps_full++;
	bpf_map_update_elem(l->procs_fd, &j->pid, &p, BPF_ANY);
}

/* A child has its parent's mappings, unless its own (after an exec whose side-band
 * records came first) are already in. */
static void job_fork(struct unwload *l, const struct job *j)
{
	struct unw_proc p;

	if (!bpf_map_lookup_elem(l->procs_fd, &j->parent, &p))
		bpf_map_update_elem(l->procs_fd, &j->pid, &p, BPF_NOEXIST);
}

static void job_run(struct unwload *l, struct job *j)
{
	switch (j->kind) {
	case JOB_MAP:
		job_map(l, j);
		break;
	case JOB_FORK:
		job_fork(l, j);
		break;
	default:
		bpf_map_delete_elem(l->procs_fd, &j->pid);
		break;
	}
	free(j->path);
}

static void *unwload_main(void *arg)
{
	struct unwload *l = arg;

	pthread_mutex_lock(&l->mu);
	for (;;) {
		struct job j;

		while (!l->qlen && !l->stop)
			pthread_cond_wait(&l->cv, &l->mu);
		if (!l->qlen)
			break;
		j = l->q[l->qhead];
		l->qhead = (l->qhead + 1) % l->qcap;
		l->qlen--;
		pthread_mutex_unlock(&l->mu);
		job_run(l, &j);
		pthread_mutex_lock(&l->mu);
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

/* --- the queue, from the consumer thread --- */

static void enqueue(struct unwload *l, const struct job *j)
{
	pthread_mutex_lock(&l->mu);
	if (l->qlen == l->qcap) {
		uint32_t cap = l->qcap ? l->qcap * 2 : 256;
		struct job *q = malloc(cap * sizeof(*q));

		if (!q) {
			pthread_mutex_unlock(&l->mu);
			free(j->path);
			return;
		}
		for (uint32_t i = 0; i < l->qlen; i++)
			q[i] = l->q[(l->qhead + i) % l->qcap];
		free(l->q);
		l->q = q;
		l->qcap = cap;
		l->qhead = 0;
	}
	l->q[(l->qhead + l->qlen) % l->qcap] = *j;
	l->qlen++;
	pthread_cond_signal(&l->cv);
	pthread_mutex_unlock(&l->mu);
}

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif

struct mmap2_rec {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	char filename[];
};

void unwload__sideband(struct unwload *l, const struct perf_event_header *ev)
{
	const struct mmap2_rec *m = (const void *)ev;
	struct job j = { .kind = JOB_MAP };
	size_t room;

	if (!l)
		return;
	if (ev->type == PERF_RECORD_COMM && (ev->misc & PERF_RECORD_MISC_COMM_EXEC) &&
	    ev->size >= sizeof(*ev) + 8) {
		memcpy(&j.pid, ev + 1, 4);
		j.kind = JOB_EXEC;
		enqueue(l, &j);
		return;
	}
	if (ev->type != PERF_RECORD_MMAP2 || ev->size <= sizeof(*m) || !(m->prot & PROT_EXEC))
		return;
	room = ev->size - sizeof(*m);
	if ((ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && (const uint8_t *)&m->maj + 4 + sizeof(j.bid) <=
	    (const uint8_t *)ev + ev->size) {
		/* {maj min ino gen} holds {bid_size, 3 reserved, bid[20]} instead. */
		const uint8_t *b = (const uint8_t *)&m->maj;

		j.bid_len = b[0] <= sizeof(j.bid) ? b[0] : 0;
		memcpy(j.bid, b + 4, j.bid_len);
	}
	j.pid = m->pid;
	j.start = m->addr;
	j.len = m->len;
	j.pgoff = m->pgoff;
	if ((m->filename[0] == '/' || !strcmp(m->filename, VDSO_NAME)) && strnlen(m->filename, room) < room)
		j.path = strdup(m->filename);
	enqueue(l, &j);
}

void unwload__fork(struct unwload *l, uint32_t parent, uint32_t child)
{
	struct job j = { .kind = JOB_FORK, .pid = child, .parent = parent };

	if (l)
		enqueue(l, &j);
}

void unwload__exit(struct unwload *l, uint32_t tgid)
{
	struct job j = { .kind = JOB_EXIT, .pid = tgid };

	if (l)
		enqueue(l, &j);
}

/* --- start and stop --- */

int unwload__start(struct unwload **out, struct probes *p)
{
	struct unwload *l;

	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->rows_fd = probes__map_fd(p, MAP_unw_rows);
	l->rules_fd = probes__map_fd(p, MAP_unw_rules);
	l->procs_fd = probes__map_fd(p, MAP_unw_procs);
	l->stats_fd = probes__map_fd(p, MAP_unw_stats);
	l->rows_cap = map_entries(l->rows_fd);
	l->rules_cap = map_entries(l->rules_fd);
	if (l->rows_cap <= 1 || l->rules_cap <= 1) {
		free(l);
		return 0;
	}
	l->rows = map_mmap(l->rows_fd, l->rows_cap, sizeof(*l->rows));
	l->rules = map_mmap(l->rules_fd, l->rules_cap, sizeof(*l->rules));
	l->nrules = 1;		/* rule 0: none */
	pthread_mutex_init(&l->mu, NULL);
	pthread_cond_init(&l->cv, NULL);
	elf_version(EV_CURRENT);
	if (!l->rows || !l->rules || pthread_create(&l->thread, NULL, unwload_main, l)) {
		log__warn("no in-kernel stack walk (%s): stacks are copied", strerror(errno));
		unwload__stop(l, NULL);
		return 0;
	}
	*out = l;
	return 0;
}

static void walk_counts(struct unwload *l, struct unwload_stats *st)
{
	int ncpu = libbpf_num_possible_cpus();
	uint32_t zero = 0;
	uint64_t *v;

	if (ncpu <= 0 || !(v = calloc((size_t)ncpu * (UNW_END__COUNT + 1), sizeof(*v))))
		return;
	if (!bpf_map_lookup_elem(l->stats_fd, &zero, v))
		for (int c = 0; c < ncpu; c++) {
			for (int i = 0; i < UNW_END__COUNT; i++)
				st->walk_end[i] += v[c * (UNW_END__COUNT + 1) + i];
			st->walked += v[c * (UNW_END__COUNT + 1) + UNW_END__COUNT];
		}
	free(v);
}

void unwload__stop(struct unwload *l, struct unwload_stats *st)
{
	if (!l)
		return;
	if (l->thread) {
		pthread_mutex_lock(&l->mu);
		l->stop = true;
		pthread_cond_signal(&l->cv);
		pthread_mutex_unlock(&l->mu);
		pthread_join(l->thread, NULL);
	}
	if (st) {
		*st = l->st;
		walk_counts(l, st);
	}
	for (uint32_t i = 0; i < l->qlen; i++)
		free(l->q[(l->qhead + i) % l->qcap].path);
	for (uint32_t i = 0; i < l->nobjs; i++)
		free(l->objs[i].segs);
	if (l->rows)
		munmap(l->rows, ((size_t)l->rows_cap * sizeof(*l->rows) + 4095) & ~(size_t)4095);
	if (l->rules)
		munmap(l->rules, ((size_t)l->rules_cap * sizeof(*l->rules) + 4095) & ~(size_t)4095);
	free(l->q);
	free(l->objs);
	hmap__free(&l->rule_ids);
	strmap__free(&l->paths);
	free(l);
}

void unwload__end(struct unwload *l, struct strbuf *meta)
{
	struct unwload_stats st;

	if (!l)
		return;
	unwload__stop(l, &st);
	log__debug("stack walk: %llu objects with tables (%llu from the cache; %llu rows, %.3f s), "
		   "%llu without, %llu refused (rows full), %llu mappings left out",
		   (unsigned long long)st.objects, (unsigned long long)st.cached,
		   (unsigned long long)st.rows, st.build_ns / 1e9,
		   (unsigned long long)st.no_table, (unsigned long long)st.rows_full,
		   (unsigned long long)st.maps_full);
	strbuf__addf(meta,
		     "%s\t{\"objects\":%llu,\"rows\":%llu,\"no_table\":%llu,\"rows_full\":%llu,"
		     "\"maps_full\":%llu,\"other_file\":%llu,\"frames\":%llu,\"whole\":%llu,\"no_proc\":%llu,"
		     "\"no_map\":%llu,\"no_rule\":%llu,\"bad_read\":%llu,\"loop\":%llu,\"cap\":%llu}\n",
		     META_STACK_WALK, (unsigned long long)st.objects, (unsigned long long)st.rows,
		     (unsigned long long)st.no_table, (unsigned long long)st.rows_full,
		     (unsigned long long)st.maps_full, (unsigned long long)st.other_file,
		     (unsigned long long)st.walked,
		     (unsigned long long)st.walk_end[UNW_END_WHOLE],
		     (unsigned long long)st.walk_end[UNW_END_NO_PROC],
		     (unsigned long long)st.walk_end[UNW_END_NO_MAP],
		     (unsigned long long)st.walk_end[UNW_END_NO_RULE],
		     (unsigned long long)st.walk_end[UNW_END_BAD_READ],
		     (unsigned long long)st.walk_end[UNW_END_LOOP],
		     (unsigned long long)st.walk_end[UNW_END_CAP]);
}
