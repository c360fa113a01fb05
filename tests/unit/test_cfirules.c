/* Unit tests for finalize/cfirules: rules read from a fixture's .eh_frame, including the
 * PLT's CFA expression, in a process where nothing else has used libelf yet. */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "elf_fixture.h"
#include "finalize/cfirules.h"
#include "symbolize/addrspace.h"

#define BASE 0x400000ull
#define DW_RSP 7
#define DW_RIP 16

/* The link-time address of section name, read from the raw headers: libelf must stay
 * untouched until cfirules opens the file. */
static uint64_t raw_section_addr(const char *path, const char *name)
{
	static unsigned char buf[1 << 16];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
	const Elf64_Shdr *sh, *strs;

	if (f)
		fclose(f);
	if (n < sizeof(*eh) || eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(*sh) > n)
		return 0;
	sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
	strs = &sh[eh->e_shstrndx];
	for (int i = 0; i < eh->e_shnum; i++)
		if (strs->sh_offset + sh[i].sh_name < n &&
		    !strcmp((const char *)buf + strs->sh_offset + sh[i].sh_name, name))
			return sh[i].sh_addr;
	return 0;
}

static struct mapping fixture_mapping(const char *path)
{
	return (struct mapping){ .start = BASE, .end = BASE + (1u << 20), .pgoff = 0, .ts = 1,
				 .path = path };
}

/* First: cfirules sets libelf up itself (objects it opened before a libdwfl session did
 * had no CFI).  A PLT entry's first instruction: CFA = rsp + 8, the return address at
 * CFA - 8. */
static void test_plt_entry_rule(void **state)
{
	const char *path = fx_path("nofp");
	uint64_t plt = raw_section_addr(path, ".plt");
	struct mapping m = fixture_mapping(path);
	struct cfirules *c = cfirules__new();
	const struct cfi_rule *r;

	assert_non_null(c);
	assert_true(plt != 0);
	/* .plt's first 16 bytes are the resolver's stub; entries follow. */
	r = cfirules__at(c, &m, BASE + plt + 16);
	assert_non_null(r);
	assert_int_equal(r->cfa_reg, DW_RSP);
	assert_int_equal(r->cfa_off, 8);
	assert_int_equal(r->how[DW_RIP], CFI_AT);
	assert_int_equal(r->off[DW_RIP], -8);
	/* Its push (offset 6) has not run yet; from offset 11 on, it has. */
	r = cfirules__at(c, &m, BASE + plt + 16 + 6);
	assert_non_null(r);
	assert_int_equal(r->cfa_off, 8);
	r = cfirules__at(c, &m, BASE + plt + 16 + 11);
	assert_non_null(r);
	assert_int_equal(r->cfa_reg, DW_RSP);
	assert_int_equal(r->cfa_off, 16);
	cfirules__free(c);
}

/* An ordinary function: CFA = rsp + something, the return address at CFA - 8. */
static void test_function_rule(void **state)
{
	const char *path = fx_path("nofp");
	unsigned long long main_addr = 0, main_size = 0;
	struct mapping m = fixture_mapping(path);
	struct cfirules *c = cfirules__new();
	const struct cfi_rule *r;

	assert_true(elf_sym(path, "main", &main_addr, &main_size));
	r = cfirules__at(c, &m, BASE + main_addr);
	assert_non_null(r);
	assert_int_equal(r->cfa_reg, DW_RSP);
	assert_int_equal(r->cfa_off, 8);
	assert_int_equal(r->how[DW_RIP], CFI_AT);
	assert_int_equal(r->off[DW_RIP], -8);
	/* Outside the mapping's object: no rule. */
	assert_null(cfirules__at(c, &m, BASE + (1u << 20) - 1));
	cfirules__free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plt_entry_rule),
		cmocka_unit_test(test_function_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
