#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/records.h"
#include "common/hmap.h"
#include "finalize/jitmaps.h"
#include "finalize/pyframes.h"
#include "symbolize/addrspace.h"
#include "finalize/labels.h"

#include "symbolize/ksym.h"
#include "symbolize/symcache.h"
#include "symbolize/usym.h"
#include "trace/schema.h"

struct labeler {
	const struct addrspace *as;
	struct ksyms *ks;
	struct usym *usym;
	struct jitmaps *jit;
	const struct pyframes *py;
	struct strbuf jit_used;		/* "j SPACE ADDR 1 NAME" lines: JIT names given, and
					 * "p FRAME LABEL" lines: Python frames' labels */
	struct hmap py_kept;		/* Python frames with a "p" line */
	struct labeler_stats st;
};

const char *labeler__jit_used(const struct labeler *l)
{
	return l->jit_used.s ? l->jit_used.s : "";
}

void labeler__set_jitmaps(struct labeler *l, struct jitmaps *j)
{
	l->jit = j;
}

void labeler__set_pyframes(struct labeler *l, const struct pyframes *py)
{
	l->py = py;
}


/* Code in no file: anonymous executable memory (JIT compilers) or a memfd. */
static bool anon_code(const char *path)
{
	return !path[0] || !strcmp(path, "//anon") || !strncmp(path, "[anon", 5) ||
	       !strncmp(path, "/memfd:", 7);
}

struct labeler *labeler__new(const struct addrspace *as, struct ksyms *ks)
{
	struct labeler *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->as = as;
	l->ks = ks;
	/* libdwfl would fetch missing debug info over the network when DEBUGINFOD_URLS is
	 * set; symbolization stays local unless the user asks (PROBEX_DEBUGINFOD=1). */
	if (!getenv("PROBEX_DEBUGINFOD"))
		unsetenv("DEBUGINFOD_URLS");
	l->usym = usym__new();
	/* Labels are function names: no line tables (for libc's compressed debug file alone
	 * that saves ~0.1 s per trace). */
	if (l->usym)
		usym__set_lines(l->usym, false);
	if (!l->usym) {
		free(l);
		return NULL;
	}
	return l;
}

void labeler__free(struct labeler *l)
{
	if (!l)
		return;
	usym__free(l->usym);
	strbuf__free(&l->jit_used);
	hmap__free(&l->py_kept);
	free(l);
}

/* Labels must not contain the separator or line breaks: both become spaces. */
static void add_label(struct strbuf *out, const char *s)
{
	size_t start = out->len;
	char sep = LABEL_SEP;

	strbuf__add(out, &sep, 1);
	strbuf__add(out, s, strlen(s));
	for (size_t i = start + 1; !out->err && i < out->len; i++)
		if (out->s[i] == LABEL_SEP || out->s[i] == '\n' || out->s[i] == '\r')
			out->s[i] = ' ';
}

static void add_hex(struct strbuf *out, uint64_t addr)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)addr);
	add_label(out, buf);
}

/* The object of a label, in the stack_modules list aligned with the labels. */
static void add_module(struct strbuf *mods, const char *module)
{
	if (mods)
		add_label(mods, module);
}

/* A label that is no frame ([user], [kernel], [truncated]): no object. */
static void add_mark(struct strbuf *out, struct strbuf *mods, const char *mark)
{
	add_label(out, mark);
	add_module(mods, "");
}

/* A Python frame merged into the stack (pyframes.h): its label, module "python". */
static void python_frame(struct labeler *l, uint64_t frame, struct strbuf *out, struct strbuf *mods)
{
	struct strbuf s = { 0 };

	uint32_t seen;

	pyframes__label(l->py, frame, &s);
	add_label(out, s.s ? s.s : "[python]");
	/* Kept in the symbol data: the code objects are gone after recording. */
	if (s.s && !hmap__get(&l->py_kept, frame, &seen) && !hmap__put(&l->py_kept, frame, 1))
		strbuf__addf(&l->jit_used, "p %llx %s\n", (unsigned long long)frame, s.s);
	strbuf__free(&s);
	add_module(mods, PYFRAME_MODULE);
}

const void *labeler__frame_mapping(struct labeler *l, const struct stack_entry *e, uint32_t i)
{
	uint64_t addr = e->frames[i];

	if (pyframes__is(addr))
		return NULL;
	return addrspace__find(l->as, e->space, i == 0 ? addr : addr - 1, e->ts);
}

void labeler__count_frame(struct labeler *l, unsigned int counted)
{
	l->st.user_frames++;
	l->st.user_mapped += !!(counted & LABELER_MAPPED);
	l->st.user_symbolized += !!(counted & LABELER_SYMBOLIZED);
	l->st.user_jit += !!(counted & LABELER_JIT);
}

unsigned int labeler__user_frame(struct labeler *l, const struct stack_entry *e, uint32_t i,
				 struct strbuf *out, struct strbuf *mods)
{
	uint64_t addr = e->frames[i];
	/* Return addresses point after the call: look up the call instruction instead,
	 * or call sites get attributed to the next line or inline scope. */
	uint64_t look = i == 0 ? addr : addr - 1;
	const struct mapping *m = addrspace__find(l->as, e->space, look, e->ts);
	unsigned int counted = 0;
	char path[4200];
	char buf[4300];
	size_t plen;

	if (pyframes__is(addr)) {
		python_frame(l, addr, out, mods);
		goto done;
	}
	if (m && anon_code(m->path)) {
		const char *name = jitmaps__name(l->jit, e->space, look);

		if (name) {
			counted |= LABELER_JIT;
			add_label(out, name);
			/* Kept in the symbol data: the map itself is gone after recording. */
			strbuf__addf(&l->jit_used, "j %u %llx 1 %s\n", e->space, (unsigned long long)look, name);
		} else {
			add_hex(out, addr);
		}
		add_module(mods, m->path[0] ? m->path : "//anon");
		goto done;
	}
	if (m && m->path[0] == '[') {
		add_label(out, m->path);	/* [vdso], [uprobes], ... */
		add_module(mods, m->path);
		goto done;
	}
	if (!m || m->path[0] != '/') {
		add_hex(out, addr);
		add_module(mods, m ? m->path : "");
		goto done;
	}
	counted |= LABELER_MAPPED;
	snprintf(path, sizeof(path), "%s", m->path);
	plen = strlen(path);
	if (plen > 10 && !strcmp(path + plen - 10, " (deleted)"))
		path[plen - 10] = 0;
	{
		struct usym_result r;

		if (usym__lookup(l->usym, path, NULL, m->build_id, m->build_id_len,
				 look - m->start + m->pgoff, &r) == 0 && r.n) {
			for (unsigned int k = 0; k < r.n; k++) {
				add_label(out, r.names[k]);
				add_module(mods, m->path);
			}
			counted |= LABELER_SYMBOLIZED;
			goto done;
		}
	}
	snprintf(buf, sizeof(buf), "%s+0x%llx", m->path,
		 (unsigned long long)(addr - m->start + m->pgoff));
	add_label(out, buf);
	add_module(mods, m->path);
done:
	labeler__count_frame(l, counted);
	return counted;
}

/* Frame-pointer walks through code without frame pointers (glibc's clone3, ld.so's entry)
 * can loop on one bogus frame until the depth limit: such a truncated stack ends (root
 * side) in a long run of one address.  Keep one of them.  A CFI walk never loops (its
 * stack pointer only moves up): a run there is a deep recursion, kept whole. */
#define LOOP_RUN 8

/* Frames a walk may keep, leaf first: it ends at the first address outside every
 * executable mapping the process had (the kernel reports exactly those), which is data
 * read as a return address (a frame-pointer walk through code without frame pointers,
 * or a bad unwind), not code. */
static uint32_t code_frames(struct labeler *l, const struct stack_entry *e, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = e->frames[i];

		if (pyframes__is(a))
			continue;
		if (a < 0x1000 || a >= (1ull << 63) ||
		    !addrspace__find(l->as, e->space, i == 0 ? a : a - 1, e->ts)) {
			l->st.user_cut_stacks++;
			return i;
		}
	}
	return n;
}

uint32_t labeler__user_frames(struct labeler *l, const struct stack_entry *e, bool *trunc)
{
	uint32_t n = code_frames(l, e, e->n);

	*trunc = n < e->n || (e->flags & REC_F_USTACK_TRUNC);
	if (n == e->n && n == PROBEX_MAX_FRAMES && (e->flags & REC_F_USTACK_TRUNC)) {
		uint32_t run = 1;

		while (run < n && e->frames[n - 1 - run] == e->frames[n - 1])
			run++;
		if (run >= LOOP_RUN)
			n -= run - 1;
	}
	return n;
}

void labeler__user_marks(struct strbuf *out, struct strbuf *mods, bool trunc)
{
	add_mark(out, mods, STACK_MARK_USER);
	if (trunc)
		add_mark(out, mods, STACK_MARK_TRUNCATED);
}

int labeler__user(struct labeler *l, const struct stack_entry *e, struct strbuf *out,
		  struct strbuf *mods)
{
	bool trunc;
	uint32_t n = labeler__user_frames(l, e, &trunc);

	labeler__user_marks(out, mods, trunc);
	for (uint32_t i = n; i-- > 0;)
		labeler__user_frame(l, e, i, out, mods);
	return out->err ? out->err : mods ? mods->err : 0;
}

static const char *kernel_name(struct labeler *l, uint64_t addr)
{
	if (l->ks)
		return ksyms__label(l->ks, addr, NULL);
	return NULL;
}

/* The leaf end of a kernel stack taken from a BPF program is the tracing machinery
 * itself; users want the stack of the traced code.  It is a few frames deep. */
#define TRACING_FRAMES_MAX 8

static bool is_tracing_frame(const char *name)
{
	static const char *const prefixes[] = { "bpf_", "__bpf_", "__traceiter_", "perf_trace_",
						"trace_event_raw_event_", "__perf_event_overflow",
						"perf_swevent_", "__perf_", "perf_event_",
						STACK_PROBEX_BPF_PREFIX };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* A kernel label's object: the module named in "name [module]", else the kernel. */
static void kernel_module(struct strbuf *mods, const char *name)
{
	const char *open = name ? strrchr(name, '[') : NULL;
	size_t n = name ? strlen(name) : 0;
	char buf[128];

	if (!mods)
		return;
	if (open && open > name && open[-1] == ' ' && name[n - 1] == ']' &&
	    (size_t)(name + n - 1 - open - 1) < sizeof(buf)) {
		snprintf(buf, sizeof(buf), "%.*s", (int)(name + n - 1 - open - 1), open + 1);
		add_label(mods, buf);
		return;
	}
	add_label(mods, "[kernel.kallsyms]");
}

int labeler__kernel(struct labeler *l, const struct stack_entry *e, struct strbuf *out,
		    struct strbuf *mods)
{
	uint32_t skip = 0;

	/* A lazy table names this stack's new addresses in one request; if that fails they
	 * stay addresses, as without symbols (the failure is the resolver's to report). */
	if (l->ks)
		ksyms__resolve(l->ks, e->frames, e->n);
	/* Up to the last tracing frame before the traced code's first named one: a program
	 * no longer loaded (a spool recovered later) is an address, not a name. */
	for (uint32_t i = 0; i < e->n && i < TRACING_FRAMES_MAX; i++) {
		const char *name = kernel_name(l, e->frames[i]);

		if (name && !is_tracing_frame(name))
			break;
		if (name)
			skip = i + 1;
	}
	add_mark(out, mods, STACK_MARK_KERNEL);
	if (e->flags & REC_F_KSTACK_TRUNC)
		add_mark(out, mods, STACK_MARK_TRUNCATED);
	for (uint32_t i = e->n; i-- > skip;) {
		const char *name = kernel_name(l, e->frames[i]);

		l->st.kernel_frames++;
		if (name) {
			l->st.kernel_symbolized++;
			add_label(out, name);
		} else {
			add_hex(out, e->frames[i]);
		}
		kernel_module(mods, name);
	}
	return out->err ? out->err : mods ? mods->err : 0;
}

void labeler__stats(const struct labeler *l, struct labeler_stats *out)
{
	struct symcache_stats cs;
	struct usym_stats us;

	*out = l->st;
	usym__stats(l->usym, &us);
	symcache__stats(&cs);
	out->cache_hits = cs.hits;
	out->cache_misses = cs.misses;
	out->cache_corrupt = cs.corrupt;
	out->objects = us.files_opened;
	out->objects_failed = us.files_failed;
	out->objects_indexed = us.objects_indexed;
	out->build_id_mismatch = us.build_id_mismatch;
}

char *labeler__stats_json(const struct labeler_stats *st)
{
	char *s;

	if (asprintf(&s, "{\"objects\":%llu,\"objects_failed\":%llu,\"objects_indexed\":%llu,"
		     "\"user_frames\":%llu,\"user_frames_named\":%llu,\"user_frames_unnamed_in_file\":%llu,"
		     "\"build_id_mismatch\":%llu,\"kernel_frames\":%llu,\"kernel_frames_named\":%llu,"
		     "\"cache_hits\":%llu,\"cache_misses\":%llu,\"cache_corrupt\":%llu}",
		     (unsigned long long)st->objects, (unsigned long long)st->objects_failed,
		     (unsigned long long)st->objects_indexed, (unsigned long long)st->user_frames,
		     (unsigned long long)st->user_symbolized,
		     (unsigned long long)(st->user_mapped - st->user_symbolized),
		     (unsigned long long)st->build_id_mismatch, (unsigned long long)st->kernel_frames,
		     (unsigned long long)st->kernel_symbolized, (unsigned long long)st->cache_hits,
		     (unsigned long long)st->cache_misses, (unsigned long long)st->cache_corrupt) < 0)
		return NULL;
	return s;
}

void labeler__add_cut_records(struct labeler *l, uint64_t records)
{
	l->st.user_cut_records += records;
}
