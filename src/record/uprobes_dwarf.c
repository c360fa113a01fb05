/* A u: probe's return type from the binary's DWARF (or its build-id debug file): the
 * base type the function's DW_AT_type names, through typedefs and qualifiers. */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>

#include "record/uprobes.h"

struct func_find {
	const char *name;
	Dwarf_Addr addr;	/* or the function at this address (an alias's: malloc is __libc_malloc) */
	Dwarf_Die die;
	int found;
};

/* The last binary's DWARF, kept for the next probe on it: opening libc's debug file
 * (compressed sections) takes ~70 ms. */
static struct {
	char path[4096];
	int fd, dfd;
	Dwarf *dw;
} cache = { .fd = -1, .dfd = -1 };

static int int_type(Dwarf_Word size, int sign)
{
	switch (size) {
	case 1: return sign ? PA_S8 : PA_U8;
	case 2: return sign ? PA_S16 : PA_U16;
	case 4: return sign ? PA_S32 : PA_U32;
	case 8: return sign ? PA_S64 : PA_U64;
	default: return -ENOENT;
	}
}

/* The probe type of a DWARF type, or -ENOENT (void, floats, aggregates). */
static int die_type(Dwarf_Die *die)
{
	Dwarf_Attribute at;
	Dwarf_Die t = *die;
	Dwarf_Word enc = DW_ATE_signed;

	for (int hops = 0; hops < 16; hops++) {
		if (!dwarf_attr_integrate(&t, DW_AT_type, &at) || !dwarf_formref_die(&at, &t))
			return -ENOENT;
		switch (dwarf_tag(&t)) {
		case DW_TAG_typedef: case DW_TAG_const_type: case DW_TAG_volatile_type:
		case DW_TAG_restrict_type: case DW_TAG_atomic_type:
			continue;
		case DW_TAG_pointer_type: case DW_TAG_reference_type: case DW_TAG_rvalue_reference_type:
			return PA_PTR;
		case DW_TAG_enumeration_type:
			return int_type(dwarf_bytesize(&t), 1);
		case DW_TAG_base_type:
			if (dwarf_attr(&t, DW_AT_encoding, &at))
				dwarf_formudata(&at, &enc);
			if (enc != DW_ATE_signed && enc != DW_ATE_signed_char && enc != DW_ATE_unsigned &&
			    enc != DW_ATE_unsigned_char && enc != DW_ATE_boolean)
				return -ENOENT;
			return int_type(dwarf_bytesize(&t), enc == DW_ATE_signed || enc == DW_ATE_signed_char);
		default:
			return -ENOENT;
		}
	}
	return -ENOENT;
}

static int func_cb(Dwarf_Die *die, void *arg)
{
	struct func_find *f = arg;
	Dwarf_Attribute at;
	const char *n = dwarf_diename(die), *link = NULL;

	Dwarf_Addr lo;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &at))
		link = dwarf_formstring(&at);
	if ((!n || strcmp(n, f->name)) && (!link || strcmp(link, f->name)) &&
	    (!f->addr || dwarf_lowpc(die, &lo) || lo != f->addr))
		return DWARF_CB_OK;
	if (dwarf_hasattr(die, DW_AT_declaration))
		return DWARF_CB_OK;
	f->die = *die;
	f->found = 1;
	return DWARF_CB_ABORT;
}

/* /usr/lib/debug/.build-id/xx/yyyy.debug of the ELF file fd, or -ENOENT. */
static int debug_fd(int fd)
{
	char p[128];
	const unsigned char *id;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ssize_t n = e ? dwelf_elf_gnu_build_id(e, (const void **)&id) : -1;
	int len;

	if (n < 2 || n > 40) {
		if (e)
			elf_end(e);
		return -ENOENT;
	}
	len = snprintf(p, sizeof(p), "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (ssize_t i = 1; i < n; i++)
		len += snprintf(p + len, sizeof(p) - len, "%02x", id[i]);
	snprintf(p + len, sizeof(p) - len, ".debug");
	elf_end(e);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -ENOENT : fd;
}

/* The CU holding vaddr (through .debug_aranges), else every CU (slow in a large binary). */
static int find_in(Dwarf *dw, const char *func, uint64_t vaddr)
{
	struct func_find f = { .name = func, .addr = vaddr };
	Dwarf_Off off = 0, next;
	Dwarf_Die cu;
	size_t hsize;

	if (vaddr && dwarf_addrdie(dw, vaddr, &cu)) {
		dwarf_getfuncs(&cu, func_cb, &f, 0);
		return f.found ? die_type(&f.die) : -ENOENT;
	}
	while (!f.found && !dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		if (dwarf_offdie(dw, off + hsize, &cu))
			dwarf_getfuncs(&cu, func_cb, &f, 0);
		off = next;
	}
	return f.found ? die_type(&f.die) : -ENOENT;
}

void uprobes_dwarf__close(void)
{
	if (cache.dw)
		dwarf_end(cache.dw);
	if (cache.fd >= 0)
		close(cache.fd);
	if (cache.dfd >= 0)
		close(cache.dfd);
	cache.dw = NULL;
	cache.fd = cache.dfd = -1;
	cache.path[0] = 0;
}

/* path's DWARF (cached), or NULL. */
static Dwarf *open_dwarf(const char *path)
{
	if (!strcmp(cache.path, path))
		return cache.dw;
	uprobes_dwarf__close();
	snprintf(cache.path, sizeof(cache.path), "%s", path);
	cache.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (cache.fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	cache.dw = dwarf_begin(cache.fd, DWARF_C_READ);
	if (!cache.dw && (cache.dfd = debug_fd(cache.fd)) >= 0)
		cache.dw = dwarf_begin(cache.dfd, DWARF_C_READ);
	return cache.dw;
}

int uprobes_dwarf__ret_type(const char *path, const char *func, uint64_t vaddr)
{
	Dwarf *dw = open_dwarf(path);

	return dw ? find_in(dw, func, vaddr) : -ENOENT;
}
