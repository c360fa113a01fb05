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
#include "finalize/unwind.h"
#include "symbolize/addrspace.h"

struct space {
	Dwfl *dwfl;
	bool tried;
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
	struct space *spaces;
	uint32_t nspaces;
	struct sample cur;
	struct unwind_stats st;
};

/* Whether elf has a section `name` with contents. */
static bool has_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *s;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		s = elf_strptr(elf, shstrndx, sh.sh_name);
		if (s && !strcmp(s, name))
			return true;
	}
	return false;
}

static bool file_has_section(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool found;
	Elf *elf;

	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	found = has_section(elf, name);
	elf_end(elf);
	close(fd);
	return found;
}

/* Whether a separate debug file of mod, where libdwfl's standard search looks (the
 * build-id tree, then .gnu_debuglink beside the object, in .debug/ and under
 * /usr/lib/debug), has a .debug_frame. */
static bool debug_file_has_cfi(Dwfl_Module *mod, const char *file_name, const char *link)
{
	static const char *const fmts[] = { "%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s" };
	const unsigned char *id;
	char path[4200], dir[4096];
	GElf_Addr vaddr;
	const char *slash;
	int n, len;

	n = dwfl_module_build_id(mod, &id, &vaddr);
	if (n > 1) {
		len = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", id[0]);
		for (int i = 1; i < n && len < (int)sizeof(path) - 8; i++)
			len += snprintf(path + len, sizeof(path) - len, "%02x", id[i]);
		snprintf(path + len, sizeof(path) - len, ".debug");
		if (file_has_section(path, ".debug_frame"))
			return true;
	}
	if (!link || !file_name || !(slash = strrchr(file_name, '/')))
		return false;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - file_name), file_name);
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		snprintf(path, sizeof(path), fmts[i], dir, link);
		if (strcmp(path, file_name) && file_has_section(path, ".debug_frame"))
			return true;
	}
	return false;
}

/* The answer of debug_file_has_cfi per object path, for every address space that maps
 * it (finalize is single-threaded; emptied by unwinder__free). */
#define CFI_CACHE_MAX 256
static struct cfi_entry {
	char *path;
	bool cfi;
} cfi_cache[CFI_CACHE_MAX];
static unsigned int cfi_cached;

static bool cfi_cache__get(const char *path, Dwfl_Module *mod, const char *link)
{
	bool cfi;

	for (unsigned int i = 0; path && i < cfi_cached; i++)
		if (!strcmp(cfi_cache[i].path, path))
			return cfi_cache[i].cfi;
	cfi = debug_file_has_cfi(mod, path, link);
	if (path && cfi_cached < CFI_CACHE_MAX && (cfi_cache[cfi_cached].path = strdup(path)))
		cfi_cache[cfi_cached++].cfi = cfi;
	return cfi;
}

static void cfi_cache__clear(void)
{
	while (cfi_cached)
		free(cfi_cache[--cfi_cached].path);
}

/* .gnu_debuglink and /usr/lib/debug/.build-id: CFI of objects whose .eh_frame was
 * stripped is in their separate debug file's .debug_frame.  Only a debug file with a
 * .debug_frame is handed to libdwfl: it asks for one whenever .eh_frame ends a walk
 * (every walk that reaches ld.so's _start, which has no CFI) and opens it whole,
 * inflating its compressed .debug_info, once per address space: ~10 ms each for glibc's
 * -dbg files, which have no .debug_frame to offer. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	if (!cfi_cache__get(file_name, mod, debuglink_file))
		return -1;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
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

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwinder *u = arg;
	uint64_t sp = u->cur.regs->regs[UREG_SP];

	if (addr < sp || addr - sp > u->cur.regs->len || u->cur.regs->len - (addr - sp) < 8) {
		u->cur.read_miss = true;
		return false;
	}
	memcpy(result, u->cur.stack + (addr - sp), 8);
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

/* Load bias of the object mapped at m: its runtime address minus its link-time one,
 * from the loadable segment holding m's file offset. */
static int load_bias(const char *path, const struct mapping *m, Dwarf_Addr *bias)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = -ENOEXEC;
	size_t phnum;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && !elf_getphdrnum(elf, &phnum)) {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
			    m->pgoff < (ph.p_offset & ~0xfffull) || m->pgoff >= ph.p_offset + ph.p_filesz)
				continue;
			*bias = m->start - m->pgoff + ph.p_offset - ph.p_vaddr;
			err = 0;
			break;
		}
	}
	elf_end(elf);
	close(fd);
	return err;
}

static void report(Dwfl *dwfl, const struct mapping *m)
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
		path[n - 10] = 0;
	if (load_bias(path, m, &bias))
		return;
	base = strrchr(path, '/') + 1;
	/* Fails when it overlaps an object already reported (a later mapping of the same
	 * range after a dlclose): that one's CFI is then used, or the walk ends. */
	dwfl_report_elf(dwfl, base, path, -1, bias, true);
}

static Dwfl *space_dwfl(struct unwinder *u, uint32_t space)
{
	const struct mapping *maps;
	struct space *s;
	uint32_t n;
	Dwfl *dwfl;

	if (space >= u->nspaces)
		return NULL;
	s = &u->spaces[space];
	if (s->tried)
		return s->dwfl;
	s->tried = true;
	maps = addrspace__space_mappings(u->as, space, &n);
	dwfl = dwfl_begin(&dwfl_cbs);
	if (!dwfl)
		return NULL;
	dwfl_report_begin(dwfl);
	for (uint32_t i = 0; i < n; i++)
		report(dwfl, &maps[i]);
	if (dwfl_report_end(dwfl, NULL, NULL) || !dwfl_attach_state(dwfl, NULL, 1, &thread_cbs, u)) {
		log__debug("unwind: address space %u: %s", space, dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return NULL;
	}
	s->dwfl = dwfl;
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
	if (!u->spaces) {
		free(u);
		return NULL;
	}
	return u;
}

void unwinder__free(struct unwinder *u)
{
	if (!u)
		return;
	for (uint32_t i = 0; i < u->nspaces; i++)
		if (u->spaces[i].dwfl)
			dwfl_end(u->spaces[i].dwfl);
	cfi_cache__clear();
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

/* Which reason ended a walk short of the outermost frame. */
static void count_end(struct unwinder *u, Dwfl *dwfl, int rc)
{
	struct sample *c = &u->cur;

	if (rc == 0)
		u->st.whole++;
	else if (c->depth)
		u->st.depth++;
	else if (c->read_miss)
		u->st.copy_end++;
	else if (c->n && !dwfl_addrmodule(dwfl, c->frames[c->n - 1] - (c->n > 1)))
		u->st.no_module++;
	else
		u->st.failed++;
}

uint32_t unwinder__record(struct unwinder *u, uint32_t space, const void *rec, uint32_t len,
			  uint32_t fixed, uint64_t *frames, uint32_t max, uint16_t *flags)
{
	const struct rec_ustack *c;
	uint32_t off = rec_ustack_off(fixed);
	const struct rec_hdr *h = rec;
	Dwfl *dwfl;
	int rc;

	u->st.records++;
	if (len < off + sizeof(*c)) {
		u->st.no_copy++;
		return 0;
	}
	c = (const struct rec_ustack *)((const char *)rec + off);
	if (!c->len || c->len > len - off - sizeof(*c)) {
		u->st.no_copy++;
		return 0;
	}
	u->cur = (struct sample){ .regs = c, .stack = (const uint8_t *)(c + 1), .frames = frames,
				  .max = max };
	dwfl = space_dwfl(u, space);
	if (!dwfl) {
		/* No object to unwind through: the sampled pc alone. */
		u->st.no_module++;
		frames[0] = c->regs[UREG_IP];
		*flags |= REC_F_USTACK_TRUNC;
		return 1;
	}
	rc = dwfl_getthread_frames(dwfl, h->tid ? (pid_t)h->tid : 1, frame_cb, &u->cur);
	count_end(u, dwfl, rc);
	if (rc != 0)
		*flags |= REC_F_USTACK_TRUNC;
	if (!u->cur.n) {
		frames[0] = c->regs[UREG_IP];
		return 1;
	}
	return u->cur.n;
}

void unwinder__stats(const struct unwinder *u, struct unwind_stats *out)
{
	*out = u->st;
}
