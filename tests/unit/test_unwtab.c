/* Unit tests for symbolize/unwtab: the compact table of an object agrees, address by
 * address, with the rules finalize's unwinder computes from the same .eh_frame (libdw),
 * wherever both have one; rows are sorted; the entry point's frame is the outermost. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "elf_fixture.h"
#include "finalize/cfirules.h"
#include "symbolize/addrspace.h"
#include "symbolize/unwtab.h"

#define DW_RBP 6
#define DW_RSP 7
#define DW_RIP 16

struct opened {
	int fd;
	Elf *elf;
};

static int open_elf(const char *path, struct opened *o)
{
	elf_version(EV_CURRENT);
	o->fd = open(path, O_RDONLY);
	if (o->fd < 0)
		return -1;
	o->elf = elf_begin(o->fd, ELF_C_READ_MMAP, NULL);
	return o->elf ? 0 : -1;
}

static void close_elf(struct opened *o)
{
	elf_end(o->elf);
	close(o->fd);
}

/* Each row's first address and its middle: where the table has a rule, cfirules has the
 * same CFA and return-address rule (and the same rbp rule). */
static void check_against_cfirules(const char *path, uint32_t *agree)
{
	struct mapping m = { .start = 0, .end = 1ull << 40, .pgoff = 0, .ts = 1, .path = path };
	struct unwtab t = { 0 };
	struct cfirules *c = cfirules__new();
	struct opened o = { -1, NULL };
	uint32_t others = 0;

	assert_int_equal(open_elf(path, &o), 0);
	assert_int_equal(unwtab__build(o.elf, &t), 0);
	assert_true(t.nrows > 2);
	*agree = 0;
	for (uint32_t i = 0; i + 1 < t.nrows; i++) {
		const struct unwtab_rule *r = &t.rules[t.rows[i].rule];
		uint64_t pcs[2] = { t.rows[i].pc, t.rows[i].pc + (t.rows[i + 1].pc - t.rows[i].pc) / 2 };

		assert_true(t.rows[i].pc < t.rows[i + 1].pc);
		assert_true(t.rows[i].rule < t.nrules);
		if (r->kind != UNWTAB_CFA_SP && r->kind != UNWTAB_CFA_BP)
			continue;
		for (int k = 0; k < 2; k++) {
			const struct cfi_rule *cr = cfirules__at(c, &m, pcs[k]);

			/* cfirules wants every register's rule in its forms; the walk, rsp's,
			 * rbp's and the return address's only. */
			if (!cr) {
				others++;
				continue;
			}
			assert_int_equal(cr->cfa_reg, r->kind == UNWTAB_CFA_SP ? DW_RSP : DW_RBP);
			assert_int_equal(cr->cfa_off, r->cfa_off);
			assert_int_equal(cr->how[DW_RIP], CFI_AT);
			assert_int_equal(cr->off[DW_RIP], -8);
			if (r->bp == UNWTAB_BP_AT) {
				assert_int_equal(cr->how[DW_RBP], CFI_AT);
				assert_int_equal(cr->off[DW_RBP], r->bp_off);
			}
			(*agree)++;
		}
	}
	assert_true(others * 50 < *agree);
	unwtab__free(&t);
	cfirules__free(c);
	close_elf(&o);
}

static void test_fixture_agrees(void **state)
{
	uint32_t n;

	check_against_cfirules(fx_path("nofp"), &n);
	assert_true(n > 10);
}

static void test_libc_agrees(void **state)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	uint32_t n;

	if (access(libc, R_OK))
		skip();
	check_against_cfirules(libc, &n);
	assert_true(n > 1000);
}

/* The fixture's _start (no caller: its return address is undefined) is the outermost
 * frame; a pc below every FDE has no row. */
static void test_entry_is_end(void **state)
{
	struct unwtab t = { 0 };
	const struct unwtab_row *row;
	struct opened o = { -1, NULL };
	GElf_Ehdr eh;

	assert_int_equal(open_elf(fx_path("nofp"), &o), 0);
	assert_non_null(gelf_getehdr(o.elf, &eh));
	assert_int_equal(unwtab__build(o.elf, &t), 0);
	row = unwtab__find(&t, (uint32_t)eh.e_entry + 1);
	assert_non_null(row);
	assert_int_equal(t.rules[row->rule].kind, UNWTAB_END);
	assert_null(unwtab__find(&t, t.rows[0].pc - 1));
	unwtab__free(&t);
	close_elf(&o);
}

/* An object without .eh_frame_hdr gets no table (the copy serves it). */
static void test_no_table(void **state)
{
	static const char junk[] = "not an ELF file at all";
	struct unwtab t = { 0 };
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_memory((char *)junk, sizeof(junk));
	assert_int_equal(unwtab__build(elf, &t), -ENOENT);
	elf_end(elf);
}

/* The cache's bytes give the same table back; damaged bytes give none. */
static void test_encode_decode(void **state)
{
	struct unwtab t = { 0 }, u = { 0 };
	struct opened o = { -1, NULL };
	size_t len;
	void *b;

	assert_int_equal(open_elf(fx_path("nofp"), &o), 0);
	assert_int_equal(unwtab__build(o.elf, &t), 0);
	assert_int_equal(unwtab__encode(&t, &b, &len), 0);
	assert_int_equal(unwtab__decode(b, len, &u), 0);
	assert_int_equal(u.nrows, t.nrows);
	assert_int_equal(u.nrules, t.nrules);
	assert_memory_equal(u.rows, t.rows, t.nrows * sizeof(*t.rows));
	assert_memory_equal(u.rules, t.rules, t.nrules * sizeof(*t.rules));
	unwtab__free(&u);
	assert_int_equal(unwtab__decode(b, len - 1, &u), -EINVAL);
	/* Rows out of order: the last row's pc made 0. */
	memset((char *)b + len - sizeof(struct unwtab_row), 0, 4);
	assert_int_equal(unwtab__decode(b, len, &u), -EINVAL);
	assert_null(u.rows);
	free(b);
	unwtab__free(&t);
	close_elf(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_agrees),
		cmocka_unit_test(test_libc_agrees),
		cmocka_unit_test(test_entry_is_end),
		cmocka_unit_test(test_no_table),
		cmocka_unit_test(test_encode_decode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
