/* What --probe reads of a binary: function offsets, USDT notes, the function list. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/uprobes.h"

struct elf_file {
	int fd;
	Elf *e;
};

static int elf_open(struct elf_file *f, const char *path)
{
	elf_version(EV_CURRENT);
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	f->e = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->e || elf_kind(f->e) != ELF_K_ELF) {
		if (f->e)
			elf_end(f->e);
		close(f->fd);
		return -ENOEXEC;
	}
	return 0;
}

static void elf_close(struct elf_file *f)
{
	elf_end(f->e);
	close(f->fd);
}

/* The file offset of a virtual address, through the loadable segments. */
static int vaddr_off(Elf *e, uint64_t va, uint64_t *off)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (va >= ph.p_vaddr && va < ph.p_vaddr + ph.p_memsz) {
			*off = va - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

typedef int (*sym_fn)(const char *name, const GElf_Sym *sym, void *ctx);

/* Every defined function symbol of .symtab and .dynsym; *has_symtab tells which exist. */
static int each_func(Elf *e, sym_fn fn, void *ctx, int *has_symtab)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err = 0;

	*has_symtab = 0;
	while (!err && (scn = elf_nextscn(e, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			*has_symtab = 1;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize && !err; i++) {
			GElf_Sym sym;
			const char *name;
			int t;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			t = GELF_ST_TYPE(sym.st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (name && *name)
				err = fn(name, &sym, ctx);
		}
	}
	return err;
}

struct find {
	const char *func;
	uint64_t va;
	int ifunc;
};

static int find_cb(const char *name, const GElf_Sym *sym, void *ctx)
{
	struct find *f = ctx;
	size_t n = strlen(f->func);

	/* dynsym names may carry a version (malloc@@GLIBC_2.2.5). */
	if (strncmp(name, f->func, n) || (name[n] && name[n] != '@'))
		return 0;
	f->va = sym->st_value;
	f->ifunc = GELF_ST_TYPE(sym->st_info) == STT_GNU_IFUNC;
	return 1;
}

int uprobes_elf__func(const char *path, const char *func, uint64_t *off, uint64_t *vaddr, int *stripped)
{
	struct find f = { .func = func };
	struct elf_file ef;
	int err, has_symtab;

	err = elf_open(&ef, path);
	if (err)
		return err;
	each_func(ef.e, find_cb, &f, &has_symtab);
	*stripped = !has_symtab;
	err = f.va ? vaddr_off(ef.e, f.va, off) : -ENOENT;
	*vaddr = f.va;
	elf_close(&ef);
	return err;
}

/* "N@operand" tokens: how many, and each one's size (negative: signed). */
static void note_args(struct usdt_note *n)
{
	const char *p = n->args;

	n->nargs = 0;
	while (*p && n->nargs < 12) {
		int sz = 8;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (strchr(p, '@') && sscanf(p, "%d@", &sz) != 1)
			sz = 8;
		n->size[n->nargs++] = (int8_t)sz;
		while (*p && *p != ' ')
			p++;
	}
}

int uprobes_elf__notes(const char *path, int (*fn)(const struct usdt_note *n, void *ctx), void *ctx)
{
	Elf_Scn *scn = NULL;
	struct elf_file ef;
	GElf_Shdr sh;
	int err;

	size_t shstrndx = 0;

	err = elf_open(&ef, path);
	if (err)
		return err;
	elf_getshdrstrndx(ef.e, &shstrndx);
	while (!err && (scn = elf_nextscn(ef.e, scn))) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;
		const char *sname;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		sname = elf_strptr(ef.e, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, ".note.stapsdt"))
			continue;
		d = elf_getdata(scn, NULL);
		while (d && !err && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			const char *desc = (const char *)d->d_buf + desc_off, *end = desc + nh.n_descsz;
			const char *prov, *name, *args;
			struct usdt_note n;

			if (nh.n_type != 3 || nh.n_descsz < 24 || strcmp((const char *)d->d_buf + name_off, "stapsdt"))
				continue;
			memcpy(&n.sema, desc + 16, 8);
			prov = desc + 24;
			name = memchr(prov, 0, end - prov);
			args = name ? memchr(name + 1, 0, end - name - 1) : NULL;
			if (!args)
				continue;
			name++;
			args++;
			snprintf(n.provider, sizeof(n.provider), "%s", prov);
			snprintf(n.name, sizeof(n.name), "%s", name);
			snprintf(n.args, sizeof(n.args), "%.*s", (int)strnlen(args, end - args), args);
			note_args(&n);
			err = fn(&n, ctx);
		}
	}
	elf_close(&ef);
	return err;
}

struct names {
	char **v;
	size_t n, cap;
};

static int names_cb(const char *name, const GElf_Sym *sym, void *ctx)
{
	struct names *s = ctx;
	const char *at = strchr(name, '@');

	(void)sym;
	if (s->n == s->cap) {
		char **v = realloc(s->v, (s->cap = s->cap ? 2 * s->cap : 1024) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
	}
	s->v[s->n] = at ? strndup(name, at - name) : strdup(name);
	return s->v[s->n++] ? 0 : -ENOMEM;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int uprobes_elf__list_funcs(const char *path)
{
	struct names s = { 0 };
	struct elf_file ef;
	int err, has_symtab;

	err = elf_open(&ef, path);
	if (err)
		return err;
	err = each_func(ef.e, names_cb, &s, &has_symtab);
	elf_close(&ef);
	if (s.n)
		qsort(s.v, s.n, sizeof(*s.v), cmp_str);
	for (size_t i = 0; i < s.n; i++) {
		if (!err && (!i || strcmp(s.v[i], s.v[i - 1])))
			printf("u:%s:%s\n", path, s.v[i]);
		free(s.v[i]);
	}
	free(s.v);
	if (!err && !has_symtab)
		fprintf(stderr, "probex: %s is stripped: only its dynamic symbols are listed\n", path);
	return err;
}
