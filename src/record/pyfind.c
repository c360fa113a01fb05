/* Finding CPython in a process: the executable or a mapped libpython that defines
 * _PyRuntime, its version (Py_Version from 3.11, else the object's name), and the
 * layout the kernel walks frames with. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "record/pyfind.h"

/* What an ELF object says about CPython. */
struct pyelf {
	uint64_t runtime, code_type, version_addr;	/* symbol values (0: none) */
	uint64_t eval, eval_size;	/* _PyEval_EvalFrameDefault */
	bool cpython;		/* defines Py_Initialize: CPython, walkable or not */
	uint32_t version;	/* Py_Version's value (0: none) */
	uint64_t first_vaddr;	/* the first PT_LOAD's p_vaddr, page-aligned */
	bool dyn;		/* ET_DYN: symbols are relative to the load address */
	bool needs_libpython;	/* a DT_NEEDED libpython3* */
};

static void sym_scan(Elf *e, Elf_Scn *scn, GElf_Shdr *sh, struct pyelf *o)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Sym s;

	for (size_t i = 0; d && i < n; i++) {
		const char *name;

		if (!gelf_getsym(d, (int)i, &s) || !s.st_value || s.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(e, sh->sh_link, s.st_name);
		if (!name || (name[0] != '_' && name[0] != 'P'))
			continue;
		if (!strcmp(name, "_PyRuntime"))
			o->runtime = s.st_value;
		else if (!strcmp(name, "PyCode_Type"))
			o->code_type = s.st_value;
		else if (!strcmp(name, "Py_Version"))
			o->version_addr = s.st_value;
		else if (!strcmp(name, "Py_Initialize"))
			o->cpython = true;
		else if (!strcmp(name, "_PyEval_EvalFrameDefault") && s.st_size) {
			o->eval = s.st_value;
			o->eval_size = s.st_size;
		}
	}
}

static void dyn_scan(Elf *e, Elf_Scn *scn, GElf_Shdr *sh, struct pyelf *o)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Dyn dy;

	for (size_t i = 0; d && i < n; i++) {
		const char *name;

		if (!gelf_getdyn(d, (int)i, &dy) || dy.d_tag != DT_NEEDED)
			continue;
		name = elf_strptr(e, sh->sh_link, dy.d_un.d_val);
		if (name && !strncmp(name, "libpython3", 10))
			o->needs_libpython = true;
	}
}

/* Py_Version's value from the file: the section holding it maps it to a file offset. */
static void read_version(Elf *e, int fd, struct pyelf *o)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint32_t v;

	while (o->version_addr && (scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    o->version_addr < sh.sh_addr || o->version_addr + 4 > sh.sh_addr + sh.sh_size)
			continue;
		if (pread(fd, &v, 4, (off_t)(sh.sh_offset + o->version_addr - sh.sh_addr)) == 4)
			o->version = v;
		return;
	}
}

static int pyelf__read(const char *path, struct pyelf *o)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	GElf_Phdr ph;
	size_t np;
	Elf *e;

	memset(o, 0, sizeof(*o));
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || !gelf_getehdr(e, &eh)) {
		if (e)
			elf_end(e);
		close(fd);
		return -ENOEXEC;
	}
	o->dyn = eh.e_type == ET_DYN;
	o->first_vaddr = ~0ull;
	if (!elf_getphdrnum(e, &np))
		for (size_t i = 0; i < np; i++)
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < o->first_vaddr)
				o->first_vaddr = ph.p_vaddr & ~0xfffull;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM || sh.sh_type == SHT_SYMTAB)
			sym_scan(e, scn, &sh, o);
		else if (sh.sh_type == SHT_DYNAMIC)
			dyn_scan(e, scn, &sh, o);
	}
	read_version(e, fd, o);
	elf_end(e);
	close(fd);
	return 0;
}

/* "3.X" in a file name (python3.11, libpython3.8.so.1.0): 0x030X, or 0. */
static uint16_t version_from_name(const char *path)
{
	const char *base = strrchr(path, '/'), *p;
	unsigned long minor;
	char *end;

	base = base ? base + 1 : path;
	p = strstr(base, "python3.");
	if (!p)
		return 0;
	minor = strtoul(p + 8, &end, 10);
	return end != p + 8 && minor < 100 ? (uint16_t)(0x0300 | minor) : 0;
}

int pyfind__read_mem(uint32_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);

	return n == (ssize_t)len ? 0 : -EFAULT;
}

/* The layout for this interpreter: a table, or 3.13's debug offsets from memory. */
static int layout_for(uint32_t pid, uint16_t version, uint64_t runtime, struct py_layout *l)
{
	const struct py_layout *t = pylayout__table(version);
	uint8_t buf[1024];
	int err;

	if (t) {
		*l = *t;
	} else {
		if (version < 0x030d)
			return -ENOTSUP;
		err = pyfind__read_mem(pid, runtime, buf, sizeof(buf));
		if (err)
			return err;
		err = pylayout__from_debug(buf, sizeof(buf), l);
		if (err)
			return err;
	}
	pylayout__set_span(l);
	return l->fr_span ? 0 : -ENOTSUP;
}

/* Where path is mapped from offset 0 in pid (its load address before the bias), or 0. */
static uint64_t map_start(uint32_t pid, const char *path)
{
	char mp[64], line[4400];
	uint64_t start = 0;
	FILE *f;

	snprintf(mp, sizeof(mp), "/proc/%u/maps", pid);
	f = fopen(mp, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		int pos = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &s, &e, &off, &pos) < 3 || !pos)
			continue;
		line[strcspn(line, "\n")] = 0;
		if (off == 0 && !strcmp(line + pos, path)) {
			start = s;
			break;
		}
	}
	fclose(f);
	return start;
}

/* The mapped libpython3* of pid, into path; false when none is mapped (yet). */
static bool mapped_libpython(uint32_t pid, char *path, size_t size)
{
	char mp[64], line[4400];
	bool found = false;
	FILE *f;

	snprintf(mp, sizeof(mp), "/proc/%u/maps", pid);
	f = fopen(mp, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');
		const char *base;

		if (!p)
			continue;
		p[strcspn(p, "\n")] = 0;
		base = strrchr(p, '/') + 1;
		if (!strncmp(base, "libpython3", 10) && strlen(p) < size) {
			snprintf(path, size, "%s", p);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* One object: a process's CPython if it defines _PyRuntime. */
static int from_object(uint32_t pid, const char *path, const struct pyelf *o, struct pyfound *out)
{
	uint64_t bias = 0;

	if (o->dyn) {
		uint64_t start = map_start(pid, path);

		if (!start)
			return PYFIND_LATER;
		bias = start - (o->first_vaddr == ~0ull ? 0 : o->first_vaddr);
	}
	out->version = o->version ? (uint16_t)(o->version >> 16) : version_from_name(path);
	snprintf(out->path, sizeof(out->path), "%s", path);
	/* 3.6 has no _PyRuntime. */
	if (!o->runtime)
		return PYFIND_UNSUPPORTED;
	out->proc.runtime = o->runtime + bias;
	out->proc.code_type = o->code_type ? o->code_type + bias : 0;
	out->eval = o->eval ? o->eval + bias : 0;
	out->eval_size = o->eval_size;
	if (out->version < 0x0308 || (out->version > 0x030c && out->version != 0x030d))
		return PYFIND_UNSUPPORTED;
	return layout_for(pid, out->version, out->proc.runtime, &out->proc.l) ? PYFIND_UNSUPPORTED
									      : PYFIND_OK;
}

int pyfind__process(uint32_t pid, struct pyfound *out)
{
	char exe[64], path[4096];
	struct pyelf o;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	snprintf(exe, sizeof(exe), "/proc/%u/exe", pid);
	n = readlink(exe, path, sizeof(path) - 1);
	if (n <= 0)
		return PYFIND_GONE;
	path[n] = 0;
	if (!pyelf__read(exe, &o) && (o.runtime || o.cpython))
		return from_object(pid, path, &o, out);
	if (mapped_libpython(pid, path, sizeof(path))) {
		char mapped[4200];

		/* Read through the process's root: the path is what it mapped. */
		snprintf(mapped, sizeof(mapped), "/proc/%u/root%s", pid, path);
		if (!pyelf__read(mapped, &o) && (o.runtime || o.cpython))
			return from_object(pid, path, &o, out);
		return PYFIND_NONE;
	}
	/* Linked with libpython, not mapped yet: the dynamic loader maps it soon. */
	return o.needs_libpython ? PYFIND_LATER : PYFIND_NONE;
}
