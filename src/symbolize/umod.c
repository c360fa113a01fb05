#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "symbolize/debugfile.h"
#include "symbolize/dwfunc.h"
#include "symbolize/dwname.h"
#include "symbolize/elfsyms.h"
#include "symbolize/symcache.h"
#include "symbolize/umod.h"

struct umod_seg {
	unsigned long long off, filesz, vaddr;
	bool exec;
};

struct umod {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias;	/* Dwfl address = ELF vaddr + bias */
	struct umod_seg *segs;
	size_t nsegs;
	const unsigned char *build_id;
	int build_id_len;
	struct dwfunc *dw;
	struct dwname *names;
	struct elfsyms *syms;	/* built at the first address DWARF does not name */
	unsigned long long entry;	/* e_entry (ELF vaddr), 0 for none */
	bool use_dwarf;		/* inline chains from DWARF (see umod__open) */
	bool own_dwarf;		/* the file has .debug_info itself */
};

/* NULL debuginfo_path selects libdwfl's default ":.debug:/usr/lib/debug": the build-id
 * tree, then .gnu_debuglink next to the file, in .debug/, and under /usr/lib/debug
 * (debugfile__find enters that search only when one of those files exists). */
static char *umod_debuginfo_path;

static const Dwfl_Callbacks umod_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = debugfile__find,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &umod_debuginfo_path,
};

/* Whether the file carries its own DWARF (a program built with -g) rather than leaving it
 * to a separate debug file (distribution packages). */
static bool elf_has_dwarf(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (name && (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")))
			return true;
	}
	return false;
}

static int umod__load_segments(struct umod *m)
{
	GElf_Phdr phdr;
	GElf_Ehdr eh;
	Elf *elf;
	size_t phnum;

	elf = dwfl_module_getelf(m->mod, &m->bias);
	if (!elf || elf_getphdrnum(elf, &phnum) || !gelf_getehdr(elf, &eh))
		return -ENOEXEC;
	m->entry = eh.e_entry;
	m->use_dwarf = m->own_dwarf = elf_has_dwarf(elf);
	m->segs = calloc(phnum ? phnum : 1, sizeof(*m->segs));
	if (!m->segs)
		return -ENOMEM;
	for (size_t i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, i, &phdr) || phdr.p_type != PT_LOAD)
			continue;
		m->segs[m->nsegs++] = (struct umod_seg){
			.off = phdr.p_offset,
			.filesz = phdr.p_filesz,
			.vaddr = phdr.p_vaddr,
			.exec = phdr.p_flags & PF_X,
		};
	}
	return 0;
}

int umod__open(int fd, const char *path, struct umod **out)
{
	struct umod *m;
	int err;

	m = calloc(1, sizeof(*m));
	if (!m) {
		close(fd);
		return -ENOMEM;
	}
	m->dwfl = dwfl_begin(&umod_callbacks);
	if (!m->dwfl) {
		close(fd);
		err = -ENOMEM;
		goto cleanup;
	}
	/* Reported at base 0 with p_vaddr added, the Dwfl addresses are the ELF's own virtual
	 * addresses for PIE, non-PIE and shared objects alike (bias stays 0; kept general). */
	dwfl_report_begin(m->dwfl);
	m->mod = dwfl_report_elf(m->dwfl, path, path, fd, 0, true);
	if (!m->mod) {
		close(fd);	/* consumed by libdwfl only on success */
		err = -ENOEXEC;
		goto cleanup;
	}
	if (dwfl_report_end(m->dwfl, NULL, NULL)) {
		err = -ENOEXEC;
		goto cleanup;
	}
	err = umod__load_segments(m);
	if (err)
		goto cleanup;
	{
		GElf_Addr vaddr;
		int len = dwfl_module_build_id(m->mod, &m->build_id, &vaddr);

		m->build_id_len = len > 0 ? len : 0;
	}
	/* Inline chains come from DWARF in the file itself or in a debug file of the user's
	 * (debuglink).  A distribution's debug file under /usr/lib/debug/.build-id (libc6-dbg,
	 * -dbgsym packages) gives its symbol table only: its DWARF is compressed, and
	 * inflating libc's alone cost ~0.1 s per trace, more than recording a short command. */
	if (!m->use_dwarf)
		m->use_dwarf = !debugfile__by_build_id(m->build_id, m->build_id_len);
	m->dw = dwfunc__new(m->mod);
	m->names = dwname__new();
	if (!m->dw || !m->names) {
		err = -ENOMEM;
		goto cleanup;
	}
	*out = m;
	return 0;

cleanup:
	umod__close(m);
	return err;
}

void umod__close(struct umod *m)
{
	if (!m)
		return;
	elfsyms__free(m->syms);
	dwname__free(m->names);
	dwfunc__free(m->dw);
	free(m->segs);
	if (m->dwfl)
		dwfl_end(m->dwfl);
	free(m);
}

int umod__build_id(struct umod *m, const unsigned char **id)
{
	*id = m->build_id;
	return m->build_id_len;
}

bool umod__own_dwarf(const struct umod *m)
{
	return m->own_dwarf;
}

bool umod__indexed(const struct umod *m)
{
	return m->syms;
}

/* offset → vaddr through the PT_LOAD that holds it in the file. Page-aligned mappings can
 * cover bytes of two segments; code addresses come from the executable one. */
static int umod__vaddr(const struct umod *m, unsigned long long off, unsigned long long *vaddr)
{
	const struct umod_seg *best = NULL;

	for (size_t i = 0; i < m->nsegs; i++) {
		const struct umod_seg *s = &m->segs[i];

		if (off < s->off || off - s->off >= s->filesz)
			continue;
		if (!best || (s->exec && !best->exec))
			best = s;
	}
	if (!best)
		return -ENOENT;
	*vaddr = off - best->off + best->vaddr;
	return 0;
}

/* glibc's internal calls go through hidden aliases named __GI_<name> (its
 * hidden_def); the symbol table and the DWARF of its assembler files (gas emits a
 * subprogram per function symbol) may name a function by that alias. The public name is
 * the one people know and the one perf shows. */
static const char *umod__public_name(const char *name)
{
	return !strncmp(name, "__GI_", 5) && name[5] ? name + 5 : name;
}

int umod__symbolize(struct umod *m, unsigned long long file_offset, bool lines,
		    struct umod_sym *out)
{
	Dwarf_Die chain[UMOD_MAX_DEPTH], *cudie;
	unsigned long long vaddr;
	Dwarf_Addr addr, bias;
	Dwarf_Line *line;
	int n, err;

	memset(out, 0, sizeof(*out));
	err = umod__vaddr(m, file_offset, &vaddr);
	if (err)
		return err;
	addr = vaddr + m->bias;

	n = m->use_dwarf ? dwfunc__chain(m->dw, addr, chain, UMOD_MAX_DEPTH) : 0;
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		const char *name = dwname__get(m->names, &chain[i]);

		/* An unnamed physical function still gets the ELF symbol's name below; an
		 * unnamed inlinee (rare, broken DWARF) is left out rather than shown as "??". */
		if (name)
			out->names[out->n++] = umod__public_name(name);
		else if (i == 0)
			out->names[out->n++] = NULL;
	}
	if (out->n == 0 || !out->names[0]) {
		const char *name;

		if (!m->syms && !(m->syms = symcache__table(m->mod, m->build_id, m->build_id_len)))
			return -ENOMEM;
		name = elfsyms__name(m->syms, addr);
		/* A stripped executable's entry point has no symbol left, but it is _start
		 * by definition (crt1's): a whole stack then ends in a name, as perf's and
		 * gdb's do where the symbol survived. */
		if ((!name || !*name) && m->entry && vaddr >= m->entry &&
		    vaddr - m->entry < UMOD_ENTRY_SLACK)
			name = "_start";
		if (name && *name) {
			if (out->n == 0)
				out->n = 1;
			out->names[0] = umod__public_name(name);
		} else if (out->n) {
			/* Only nameless DWARF: keep the inlinees, drop the unnamed slot. */
			memmove(out->names, out->names + 1, (out->n - 1) * sizeof(out->names[0]));
			out->n--;
		}
	}
	if (out->n == 0)
		return -ENOENT;

	if (!lines || !m->use_dwarf)
		return 0;
	cudie = dwfunc__cu_die(m->dw, addr, &bias);
	line = cudie ? dwarf_getsrc_die(cudie, addr - bias) : NULL;
	if (line) {
		int lineno = 0;

		out->file = dwarf_linesrc(line, NULL, NULL);
		out->line = out->file && !dwarf_lineno(line, &lineno) ? lineno : 0;
	}
	return 0;
}
