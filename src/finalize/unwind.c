#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/records.h"
#include "common/log.h"
#include "common/test_hooks.h"
#include "finalize/cfirules.h"
#include "finalize/unwind.h"
#include "symbolize/addrspace.h"
#include "symbolize/debugfile.h"
#include "symbolize/strmap.h"
#include "symbolize/umod.h"

/* Live libdwfl sessions at most: each maps and indexes every object of its process
 * (a fork-heavy trace has thousands of spaces); the least recently used goes first. */
#define MAX_LIVE 32

struct space {
	Dwfl *dwfl;
	bool tried;
	uint64_t used;		/* u->clock when last unwound in */
};

/* The sample being unwound, which libdwfl's callbacks read. */
struct sample {
	const struct rec_ustack *regs;
	const uint8_t *stack;
	uint64_t *frames;
	uint32_t n, max;
	bool read_miss;		/* memory outside the copy was wanted */
	bool depth;
};

struct unwinder {
	const struct addrspace *as;
	struct cfirules *rules;		/* the fast path; libdwfl for what it cannot do */
	bool no_rules;			/* test build: libdwfl for everything */
	struct space *spaces;
	uint32_t nspaces, live;
	uint64_t clock;
	struct sample cur;
	struct unwind_stats st;
};

/* Separate debug files (.gnu_debuglink, /usr/lib/debug/.build-id) hold .debug_frame
 * for objects built without unwind tables.  libdwfl reads them whenever .eh_frame has no
 * entry for a pc, in every address space: for libc that is tens of MB of DWARF per
 * process (fork-heavy traces: 25x slower finalization).  Only objects whose
 * .eh_frame describes almost nothing get theirs. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);

	if (!elf || cfi__eh_fde_count(elf) >= CFI_FEW_FDES)
		return -1;
	return debugfile__find(mod, userdata, modname, base, file_name, debuglink_file,
			       debuglink_crc, debuginfo_file_name);
}

static char *debuginfo_path;
static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	return 0;	/* threads are only ever asked for by id */
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

/* The 8 bytes at addr from the sample's stack copy; a miss is remembered (the walk then
 * ended for want of stack, not of rules). */
static bool read_word(struct sample *c, uint64_t addr, uint64_t *out)
{
	uint64_t sp = c->regs->regs[UREG_SP];

	if (addr < sp || addr - sp > c->regs->len || c->regs->len - (addr - sp) < 8) {
		c->read_miss = true;
		return false;
	}
	memcpy(out, c->stack + (addr - sp), 8);
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwinder *u = arg;
	uint64_t v;

	if (!read_word(&u->cur, addr, &v))
		return false;
	*result = v;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Word regs[UREG__COUNT];

	for (int i = 0; i < UREG__COUNT; i++)
		regs[i] = u->cur.regs->regs[i];
	dwfl_thread_state_register_pc(thread, regs[UREG_IP]);
	return dwfl_thread_state_registers(thread, 0, UREG__COUNT, regs);
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* Load bias of the object mapped at m (cfi__load_bias on the file at path). */
static int load_bias(const char *path, const struct mapping *m, Dwarf_Addr *bias)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = -ENOEXEC;
	uint64_t b;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !(err = cfi__load_bias(elf, m, &b)))
		*bias = b;
	elf_end(elf);
	close(fd);
	return err;
}

/* Report the object mapped at m, once per file: a second mapping of a file at another
 * bias (V8 maps part of node's text again, near its JIT code) cannot be a second
 * module, and reporting it would fail as overlapping and take the first one down with
 * it (libdwfl marks the module it collided with for removal). */
static void report(Dwfl *dwfl, const struct mapping *m, struct strmap *files)
{
	char path[4200];
	const char *base;
	Dwarf_Addr bias = 0;
	size_t n;

	if (m->path[0] != '/' || dwfl_addrmodule(dwfl, m->start))
		return;
	snprintf(path, sizeof(path), "%s", m->path);
	n = strlen(path);
	if (n > 10 && !strcmp(path + n - 10, " (deleted)"))
		path[n -= 10] = 0;
	if (strmap__get(files, path, n, NULL) || load_bias(path, m, &bias))
		return;
	base = strrchr(path, '/') + 1;
	/* Fails when it overlaps an object already reported (a later mapping of the same
	 * range after a dlclose): that one's CFI is then used, or the walk ends. */
	if (dwfl_report_elf(dwfl, base, path, -1, bias, true))
		strmap__put(files, path, n, 0);
}

static void evict_lru(struct unwinder *u)
{
	struct space *old = NULL;

	for (uint32_t i = 0; i < u->nspaces; i++)
		if (u->spaces[i].dwfl && (!old || u->spaces[i].used < old->used))
			old = &u->spaces[i];
	if (!old)
		return;
	dwfl_end(old->dwfl);
	old->dwfl = NULL;
	old->tried = false;	/* rebuilt if it is needed again */
	u->live--;
}

static Dwfl *space_dwfl(struct unwinder *u, uint32_t space)
{
	struct strmap files = { 0 };
	const struct mapping *maps;
	struct space *s;
	uint32_t n;
	Dwfl *dwfl;

	if (space >= u->nspaces)
		return NULL;
	s = &u->spaces[space];
	s->used = ++u->clock;
	if (s->tried)
		return s->dwfl;
	s->tried = true;
	if (u->live >= MAX_LIVE)
		evict_lru(u);
	maps = addrspace__space_mappings(u->as, space, &n);
	dwfl = dwfl_begin(&dwfl_cbs);
	if (!dwfl)
		return NULL;
	dwfl_report_begin(dwfl);
	for (uint32_t i = 0; i < n; i++)
		report(dwfl, &maps[i], &files);
	strmap__free(&files);
	if (dwfl_report_end(dwfl, NULL, NULL) || !dwfl_attach_state(dwfl, NULL, 1, &thread_cbs, u)) {
		log__debug("unwind: address space %u: %s", space, dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return NULL;
	}
	s->dwfl = dwfl;
	u->live++;
	return dwfl;
}

struct unwinder *unwinder__new(const struct addrspace *as)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->as = as;
	u->nspaces = addrspace__space_count(as);
	u->spaces = calloc(u->nspaces ? u->nspaces : 1, sizeof(*u->spaces));
	u->rules = cfirules__new();
	u->no_rules = test_hooks__no_cfi_rules();
	if (!u->spaces || !u->rules) {
		unwinder__free(u);
		return NULL;
	}
	return u;
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	for (uint32_t i = 0; u->spaces && i < u->nspaces; i++)
		if (u->spaces[i].dwfl)
			dwfl_end(u->spaces[i].dwfl);
	cfirules__free(u->rules);
	free(u->spaces);
	free(u);
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct sample *c = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (c->n == c->max) {
		c->depth = true;
		return DWARF_CB_ABORT;
	}
	c->frames[c->n++] = pc;
	return DWARF_CB_OK;
}

/* Whether the outermost frame found is in the first bytes of its object's entry point:
 * _start, whose CFI (ld.so's, some toolchains') does not mark it outermost, so libdwfl
 * fails looking for its caller although the stack is whole.  leaf: pc is the sampled
 * one (a process faulting on its first instruction), else a return address. */
static bool at_entry(Dwfl *dwfl, Dwarf_Addr pc, bool leaf)
{
	Dwarf_Addr look = leaf ? pc : pc - 1;
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, look);
	GElf_Addr bias;
	GElf_Ehdr eh;
	Elf *elf;

	elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	if (!elf || !gelf_getehdr(elf, &eh) || !eh.e_entry)
		return false;
	return look >= eh.e_entry + bias && look - (eh.e_entry + bias) < UMOD_ENTRY_SLACK;
}

/* Which reason ended a walk short of the outermost frame; whether it is whole. */
static bool count_end(struct unwinder *u, Dwfl *dwfl, int rc)
{
	struct sample *c = &u->cur;

	if ((rc == 0 && !c->read_miss) ||
	    (c->n && !c->depth && at_entry(dwfl, c->frames[c->n - 1], c->n == 1))) {
		u->st.whole++;
		return true;
	}
	if (rc == 0 && !c->read_miss)
		u->st.whole++;
	else if (c->depth)
		u->st.depth++;
	else if (c->read_miss)
		u->st.copy_end++;
	else if (c->n && !dwfl_addrmodule(dwfl, c->frames[c->n - 1] - (c->n > 1)))
		u->st.no_module++;
	else
		u->st.failed++;
	return false;
}

enum walk_end {
	WALK_BAIL,	/* something the rules do not cover: libdwfl unwinds the sample */
	WALK_END,	/* no caller: the return address is undefined, 0 or unreadable */
	WALK_DEPTH,	/* frames[] is full */
};

/* The mapping of space holding addr at ts, trying the last one found first. */
static const struct mapping *mapping_at(struct unwinder *u, uint32_t space, uint64_t ts,
					uint64_t addr, const struct mapping *last)
{
	if (last && addr >= last->start && addr < last->end)
		return last;
	return addrspace__find(u->as, space, addr, ts);
}

/* The caller's registers by rule r; what libdwfl's CFI step computes for the same rule
 * (a register it cannot recover is left unset, a failed read is remembered). */
static bool apply_rule(struct sample *c, const struct cfi_rule *r, uint64_t regs[UREG__COUNT],
		       uint32_t *valid)
{
	uint64_t next[UREG__COUNT], cfa;
	uint32_t nvalid = 0;

	if (!(*valid >> r->cfa_reg & 1))
		return false;
	cfa = regs[r->cfa_reg] + (int64_t)r->cfa_off;
	for (int i = 0; i < UREG__COUNT; i++) {
		bool ok = false;

		switch (r->how[i]) {
		case CFI_SAME:
			next[i] = regs[i];
			ok = *valid >> i & 1;
			break;
		case CFI_VAL:
			next[i] = cfa + (int64_t)r->off[i];
			ok = true;
			break;
		case CFI_AT:
			ok = read_word(c, cfa + (int64_t)r->off[i], &next[i]);
			break;
		default:
			break;
		}
		nvalid |= (uint32_t)ok << i;
	}
	memcpy(regs, next, sizeof(next));
	*valid = nvalid;
	return true;
}

/* Whether addr lies at the entry point of m's object, where a process's first frame is
 * (ld.so's _start has no FDE: libdwfl stops there too, and at_entry calls that whole). */
static bool at_object_entry(struct unwinder *u, const struct mapping *m, uint64_t addr)
{
	struct cfi_object_info oi;

	return cfirules__object(u->rules, m, &oi) && oi.entry && addr >= oi.entry &&
	       addr - oi.entry < UMOD_ENTRY_SLACK;
}

/* Unwind the current sample with cached rules, as libdwfl would (same frames, same end);
 * WALK_BAIL as soon as a frame needs more than the rules give. */
static enum walk_end fast_walk(struct unwinder *u, uint32_t space, uint64_t ts)
{
	struct sample *c = &u->cur;
	uint64_t regs[UREG__COUNT];
	uint32_t valid = (1u << UREG__COUNT) - 1;
	const struct mapping *m = NULL;

	memcpy(regs, c->regs->regs, sizeof(regs));
	for (bool leaf = true;; leaf = false) {
		/* A return address is looked up inside its call (the sampled pc as it is). */
		uint64_t look = leaf ? regs[UREG_IP] : regs[UREG_IP] - 1;
		const struct cfi_rule *r;

		if (c->n == c->max) {
			c->depth = true;
			return WALK_DEPTH;
		}
		c->frames[c->n++] = regs[UREG_IP];
		m = mapping_at(u, space, ts, look, m);
		if (!m)
			return WALK_BAIL;
		if (!(r = cfirules__at(u->rules, m, look)))
			return at_object_entry(u, m, look) ? WALK_END : WALK_BAIL;
		if (!apply_rule(c, r, regs, &valid))
			return WALK_BAIL;
		if (!(valid >> UREG_IP & 1) || !regs[UREG_IP])
			return WALK_END;
	}
}

/* count_end for a walk of the rules: the entry-point test through the rule cache's
 * objects instead of a libdwfl session. */
static bool fast_count_end(struct unwinder *u, uint32_t space, uint64_t ts, enum walk_end end)
{
	struct sample *c = &u->cur;
	uint64_t look = c->frames[c->n - 1] - (c->n > 1);
	const struct mapping *m = addrspace__find(u->as, space, look, ts);

	if ((end == WALK_END && !c->read_miss) || (!c->depth && m && at_object_entry(u, m, look))) {
		u->st.whole++;
		return true;
	}
	if (c->depth)
		u->st.depth++;
	else
		u->st.copy_end++;
	return false;
}

/* The user stack from the registers and stack copy c (len bytes at stack). */
static uint32_t copy_unwind(struct unwinder *u, uint32_t space, const struct rec_hdr *h,
			    const struct rec_ustack *c, const uint8_t *stack, uint32_t len,
			    uint64_t *frames, uint32_t max, uint16_t *flags)
{
	enum walk_end end;
	Dwfl *dwfl;
	int rc;

	if (!len) {
		/* No stack bytes (an exiting task's memory is gone): the sampled pc alone. */
		u->st.no_copy++;
		frames[0] = c->regs[UREG_IP];
		*flags |= REC_F_USTACK_TRUNC;
		return 1;
	}
	u->st.unwound++;
	u->cur = (struct sample){ .regs = c, .stack = stack, .frames = frames, .max = max };
	end = u->no_rules ? WALK_BAIL : fast_walk(u, space, h->ts);
	if (end != WALK_BAIL) {
		u->st.fast++;
		if (!fast_count_end(u, space, h->ts, end))
			*flags |= REC_F_USTACK_TRUNC;
		return u->cur.n;
	}
	u->cur = (struct sample){ .regs = c, .stack = stack, .frames = frames, .max = max };
	dwfl = space_dwfl(u, space);
	if (!dwfl) {
		/* No object to unwind through: the sampled pc alone. */
		u->st.no_module++;
		frames[0] = c->regs[UREG_IP];
		*flags |= REC_F_USTACK_TRUNC;
		return 1;
	}
	rc = dwfl_getthread_frames(dwfl, h->tid ? (pid_t)h->tid : 1, frame_cb, &u->cur);
	/* A walk libdwfl ends "normally" after a failed read (its frame-pointer fallback
	 * found no caller) stopped short too. */
	if (!count_end(u, dwfl, rc))
		*flags |= REC_F_USTACK_TRUNC;
	if (!u->cur.n) {
		frames[0] = c->regs[UREG_IP];
		return 1;
	}
	return u->cur.n;
}

/* The frames the kernel walked (rec_ustack.nwalk) into frames[], and the copy's start
 * (the registers at the frame the walk stopped at) into *adj: that frame's pc is a return
 * address, looked up as pc - 1 like a caller's, so it goes in as pc - 1 and the unwinder's
 * first frame is set back afterwards.  Its count, at most max. */
static uint32_t walked_frames(struct unwinder *u, const struct rec_ustack *c, uint64_t *frames,
			      uint32_t max, struct rec_ustack *adj, uint16_t *flags)
{
	uint32_t n = c->nwalk < max ? c->nwalk : max;

	memcpy(frames, c + 1, (size_t)n * 8);
	*adj = *c;
	if (n && c->len)
		adj->regs[UREG_IP]--;
	if (n)
		u->st.kernel_walk++;
	if (!n || (c->len && n < max))
		return n;	/* the copy goes on, and counts the outcome */
	if (c->wflags & REC_W_WHOLE && c->nwalk <= max) {
		u->st.whole++;
		return n;
	}
	if (c->wflags & REC_W_CAP || n == max)
		u->st.depth++;
	else
		u->st.no_copy++;	/* the walk stopped and nothing was copied */
	*flags |= REC_F_USTACK_TRUNC;
	return n;
}

uint32_t unwinder__record(struct unwinder *u, uint32_t space, const void *rec, uint32_t len,
			  uint32_t fixed, uint64_t *frames, uint32_t max, uint16_t *flags)
{
	const struct rec_hdr *h = rec;
	uint32_t off = rec_spool_ustack_off(fixed, h->kstack_n), walked, n;
	const struct rec_ustack *c;
	struct rec_ustack adj;

	u->st.records++;
	if (len < off + sizeof(*c) || !max) {
		u->st.no_copy++;
		return 0;
	}
	c = (const struct rec_ustack *)((const char *)rec + off);
	if (c->nwalk > UNW_MAX_FRAMES || c->len + c->nwalk * 8ull > len - off - sizeof(*c)) {
		u->st.no_copy++;
		return 0;
	}
	walked = walked_frames(u, c, frames, max, &adj, flags);
	if (walked && (!c->len || walked == max))
		return walked;
	n = copy_unwind(u, space, h, &adj, (const uint8_t *)(c + 1) + c->nwalk * 8ull, c->len,
			frames + walked, max - walked, flags);
	if (walked && n)
		frames[walked]++;
	return walked + n;
}

void unwinder__stats(const struct unwinder *u, struct unwind_stats *out)
{
	*out = u->st;
}
