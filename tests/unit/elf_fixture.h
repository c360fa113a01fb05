/* Helpers for symbolizer tests: find fixtures, read symbol addresses straight from ELF
 * symbol tables (independently of the code under test), convert them to file offsets. */
#ifndef PROBEX_TESTS_ELF_FIXTURE_H
#define PROBEX_TESTS_ELF_FIXTURE_H

#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* $(BUILD)/fixtures/NAME, found from this test's own path $(BUILD)/tests/unit/test_x. */
static inline const char *fx_path(const char *name)
{
	static char out[8][PATH_MAX];
	static int next;
	char exe[PATH_MAX];
	char *buf = out[next++ % 8];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		abort();
	exe[n] = '\0';
	snprintf(buf, PATH_MAX, "%s/../../fixtures/%s", dirname(exe), name);
	return buf;
}

/* Value and size of the named symbol, from .symtab, else .dynsym. */
static inline bool elf_sym(const char *path, const char *name, unsigned long long *value,
			   unsigned long long *size)
{
	bool found = false;
	int fd = open(path, O_RDONLY);
	Elf *elf;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	for (int pass = 0; elf && pass < 2 && !found; pass++) {
		Elf_Scn *scn = NULL;

		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *data;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB))
				continue;
			data = elf_getdata(scn, NULL);
			for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const char *s;

				if (!gelf_getsym(data, i, &sym) || !sym.st_value)
					continue;
				s = elf_strptr(elf, sh.sh_link, sym.st_name);
				if (s && !strcmp(s, name)) {
					*value = sym.st_value;
					if (size)
						*size = sym.st_size;
					found = true;
					break;
				}
			}
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

/* The file offset at which the loader maps vaddr (through the PT_LOAD holding it). */
static inline bool elf_vaddr_to_offset(const char *path, unsigned long long vaddr, unsigned long long *off)
{
	bool found = false;
	int fd = open(path, O_RDONLY);
	size_t phnum = 0;
	Elf *elf;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_getphdrnum(elf, &phnum)) {
		for (size_t i = 0; i < phnum && !found; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
			    vaddr < ph.p_vaddr + ph.p_filesz) {
				*off = vaddr - ph.p_vaddr + ph.p_offset;
				found = true;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

static inline bool elf_type(const char *path, int *type)
{
	int fd = open(path, O_RDONLY);
	GElf_Ehdr eh;
	Elf *elf;
	bool ok;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ok = elf && gelf_getehdr(elf, &eh);
	if (ok)
		*type = eh.e_type;
	elf_end(elf);
	close(fd);
	return ok;
}

static inline bool elf_has_section(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;
	bool found = false;
	size_t shstrndx;
	Elf *elf;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_getshdrstrndx(elf, &shstrndx)) {
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *s;

			if (gelf_getshdr(scn, &sh) && (s = elf_strptr(elf, shstrndx, sh.sh_name)))
				found = !strcmp(s, name);
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

/* File offset of a symbol plus delta. */
static inline unsigned long long sym_offset(const char *path, const char *name, long long delta)
{
	unsigned long long v = 0, off = 0;

	if (!elf_sym(path, name, &v, NULL) || !elf_vaddr_to_offset(path, v + delta, &off)) {
		fprintf(stderr, "no symbol %s in %s\n", name, path);
		abort();
	}
	return off;
}

/* Return address (vaddr) of the first `call rel32` in caller that targets callee: what a
 * stack walk records for caller's frame while callee runs. */
static inline bool elf_call_ret(const char *path, const char *caller, const char *callee,
				unsigned long long *ret)
{
	unsigned long long from = 0, size = 0, to = 0, off = 0;
	unsigned char *code;
	bool found = false;
	FILE *f;

	if (!elf_sym(path, caller, &from, &size) || !elf_sym(path, callee, &to, NULL) ||
	    !elf_vaddr_to_offset(path, from, &off))
		return false;
	code = malloc(size);
	f = fopen(path, "rb");
	if (f && code && !fseek(f, off, SEEK_SET) && fread(code, 1, size, f) == size) {
		for (unsigned long long i = 0; i + 5 <= size && !found; i++) {
			int rel;

			if (code[i] != 0xe8)
				continue;
			memcpy(&rel, code + i + 1, 4);
			if (from + i + 5 + rel == to) {
				*ret = from + i + 5;
				found = true;
			}
		}
	}
	if (f)
		fclose(f);
	free(code);
	return found;
}

/* 1-based line of the first source line containing marker, or 0. */
static inline int src_line(const char *src, const char *marker)
{
	char line[1024];
	int n = 0, found = 0;
	FILE *f = fopen(src, "r");

	while (f && !found && fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, marker))
			found = n;
	}
	if (f)
		fclose(f);
	return found;
}

static inline bool str_ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return s && a >= b && !strcmp(s + a - b, suffix);
}

#endif
