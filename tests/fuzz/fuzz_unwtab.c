/* libFuzzer harness: building the in-kernel walk's unwind table from a hostile object.
 *
 * The input is an ELF file (a traced process could have mapped it: its .eh_frame and
 * .eh_frame_hdr are untrusted) built into a table as the recorder does.
 * Properties:
 *   - no crash, hang, leak or undefined behaviour (ASan/UBSan);
 *   - a table's rows strictly increase by pc, name rules it has, of the kinds the kernel
 *     follows, at most UNWTAB_MAX_ROWS of them; rule 0 is "no rule";
 *   - lookups give the last row at or below the pc. */
#include <errno.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/unwtab.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	elf_version(EV_CURRENT);
	return 0;
}

static void check_table(const struct unwtab *t)
{
	FZ_CHECK(t->nrows > 0 && t->nrows <= UNWTAB_MAX_ROWS, "%u rows", t->nrows);
	FZ_CHECK(t->nrules >= 1 && t->rules[0].kind == UNWTAB_NONE, "rule 0");
	for (uint32_t i = 0; i < t->nrules; i++)
		FZ_CHECK(t->rules[i].kind <= UNWTAB_END && t->rules[i].bp <= UNWTAB_BP_UNDEF,
			 "rule %u kind %u bp %u", i, t->rules[i].kind, t->rules[i].bp);
	for (uint32_t i = 0; i < t->nrows; i++) {
		FZ_CHECK(t->rows[i].rule < t->nrules, "row %u rule %u of %u", i, t->rows[i].rule, t->nrules);
		FZ_CHECK(i == 0 || t->rows[i - 1].pc < t->rows[i].pc, "row %u not after row %u", i, i - 1);
		FZ_CHECK(unwtab__find(t, t->rows[i].pc) == &t->rows[i], "lookup of row %u", i);
	}
	FZ_CHECK(t->rows[0].pc == 0 || unwtab__find(t, t->rows[0].pc - 1) == NULL, "below the first row");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unwtab t = { 0 };
	char *copy = malloc(size ? size : 1);
	Elf *elf;
	int err;

	FZ_CHECK(copy != NULL, "no memory");
	memcpy(copy, data, size);
	elf = elf_memory(copy, size);
	if (elf) {
		err = unwtab__build(elf, &t);
		FZ_CHECK(err == 0 || err == -ENOENT || err == -E2BIG || err == -ENOMEM, "error %d", err);
		if (!err)
			check_table(&t);
		else
			FZ_CHECK(t.rows == NULL && t.rules == NULL && t.nrows == 0, "a failed build left a table");
		unwtab__free(&t);
		elf_end(elf);
	}
	free(copy);
	return 0;
}
