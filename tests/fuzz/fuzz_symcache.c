/* libFuzzer harness: an entry of the on-disk symbol cache, read back in place
 * (elfsyms__adopt).  The cache lives in the user's directory: its bytes are untrusted
 * beyond the checksum, which a crafted file can match.
 *
 * The input is the entry's payload.  It is adopted for a real module (the fuzzer's own
 * executable, for the rare addresses handed back to libdwfl), then looked up at addresses
 * taken from the input and at the edges of the address space.
 * Properties:
 *   - no crash, hang, leak or undefined behaviour (ASan/UBSan);
 *   - an adopted table's lookups give NULL or a NUL-terminated name, the same when asked
 *     again; a table built from the module and encoded is adopted again, with its names. */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/elfsyms.h"
#include "fuzz_common.h"

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};
static Dwfl_Module *self_mod;

/* The module's own table, encoded and adopted, names what the built one names. */
static void roundtrip(void)
{
	struct elfsyms *built = elfsyms__new(self_mod), *back;
	uint64_t addr = (uint64_t)(uintptr_t)&roundtrip;
	void *buf;
	size_t len;

	FZ_CHECK(built && !elfsyms__encode(built, &buf, &len), "cannot encode the table");
	back = elfsyms__adopt(self_mod, buf, len);
	FZ_CHECK(back && elfsyms__count(back) == elfsyms__count(built), "encoded table not adopted");
	for (uint64_t a = addr & ~0xfffull; a < (addr & ~0xfffull) + 0x4000; a += 16) {
		const char *x = elfsyms__name(built, a), *y = elfsyms__name(back, a);

		FZ_CHECK(x == y || (x && y && !strcmp(x, y)), "adopted table names %#llx otherwise",
			 (unsigned long long)a);
	}
	elfsyms__free(back);
	elfsyms__free(built);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	Dwfl *dwfl = dwfl_begin(&callbacks);
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	FZ_CHECK(dwfl && fd >= 0, "cannot open the fuzzer's executable");
	dwfl_report_begin(dwfl);
	self_mod = dwfl_report_elf(dwfl, "self", "/proc/self/exe", fd, 0, true);
	FZ_CHECK(self_mod && !dwfl_report_end(dwfl, NULL, NULL), "cannot report the executable");
	roundtrip();
	return 0;
}

static void check(const struct elfsyms *t, uint64_t addr)
{
	const char *a = elfsyms__name(t, addr), *b = elfsyms__name(t, addr);

	FZ_CHECK(a == b || (a && b && !strcmp(a, b)), "lookup of %#llx changed",
		 (unsigned long long)addr);
	if (a)
		(void)strlen(a);	/* terminated inside its buffer (ASan) */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The bytes in a buffer of their own, exactly their size: ASan sees any read past. */
	void *buf = malloc(size ? size : 1);
	uint64_t addrs[FZ_ADDRS_MAX];
	struct elfsyms *t;
	size_t addrs_n;

	FZ_CHECK(buf != NULL, "no memory");
	memcpy(buf, data, size);
	t = elfsyms__adopt(self_mod, buf, size);
	if (!t) {
		free(buf);
		return 0;
	}
	addrs_n = fz__addresses(data, size, addrs);
	for (size_t i = 0; i < addrs_n; i++)
		check(t, addrs[i]);
	elfsyms__free(t);	/* frees buf */
	return 0;
}
