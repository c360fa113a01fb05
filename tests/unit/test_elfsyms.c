/* The sorted symbol table must name every address exactly as libdwfl's own
 * dwfl_module_addrinfo does (its scan is the oracle): around every symbol's start and end
 * in real binaries, the fixtures (with aliases, locals, sizeless labels) and the system's
 * libc and gcc's cc1 when present. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "elf_fixture.h"
#include "symbolize/elfsyms.h"

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Probes addresses around the edges of every stride-th symbol, stride chosen so that
 * at most max_syms symbols are probed (0: all); returns how many addresses were compared. */
static unsigned long check_module(Dwfl_Module *mod, const struct elfsyms *t, int max_syms)
{
	int n = dwfl_module_getsymtab(mod);
	int stride = max_syms && n > max_syms ? n / max_syms : 1;
	unsigned long checked = 0;

	for (int i = 1; i < n; i += stride) {
		GElf_Sym s;
		GElf_Addr v;
		const char *name = dwfl_module_getsym_info(mod, i, &s, &v, NULL, NULL, NULL);
		GElf_Addr probe[] = { v - 1, v, v + 1, v + s.st_size / 2, v + s.st_size - 1,
				      v + s.st_size, v + s.st_size + 7 };

		if (!name || !v)
			continue;
		for (size_t k = 0; k < sizeof(probe) / sizeof(probe[0]); k++) {
			GElf_Off off;
			GElf_Sym sym;
			const char *want = dwfl_module_addrinfo(mod, probe[k], &off, &sym, NULL, NULL, NULL);
			const char *got = elfsyms__name(t, probe[k]);

			if (!same(want, got))
				fail_msg("%s at 0x%llx: libdwfl says %s, table says %s",
					 dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
					 (unsigned long long)probe[k], want ? want : "(none)",
					 got ? got : "(none)");
			checked++;
		}
	}
	return checked;
}

/* max_syms bounds the oracle's cost (a scan of the whole table per address: cc1's 29 000
 * symbols all probed took minutes). */
static void check_file(const char *path, int max_syms, bool must_exist)
{
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct elfsyms *t;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		if (must_exist)
			fail_msg("%s: cannot open", path);
		return;
	}
	dwfl = dwfl_begin(&callbacks);
	assert_non_null(dwfl);
	dwfl_report_begin(dwfl);
	mod = dwfl_report_elf(dwfl, path, path, fd, 0, true);
	assert_non_null(mod);
	assert_int_equal(dwfl_report_end(dwfl, NULL, NULL), 0);
	t = elfsyms__new(mod);
	assert_non_null(t);
	assert_true(elfsyms__count(t) > 0);
	assert_true(check_module(mod, t, max_syms) > 0);
	elfsyms__free(t);
	dwfl_end(dwfl);
}

static void test_fixtures(void **state)
{
	static const char *const names[] = { "sym_chain", "sym_chain_nopie", "sym_chain_clang",
					     "sym_chain_stripped", "libsymfx.so", "sym_cxx",
					     "sym_cxx_stripped", "sym_chain_minidebug" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		check_file(fx_path(names[i]), 0, true);
}

static void test_self(void **state)
{
	check_file("/proc/self/exe", 0, true);
}

static void test_system(void **state)
{
	check_file("/lib/x86_64-linux-gnu/libc.so.6", 1500, false);
	check_file("/usr/lib/gcc/x86_64-linux-gnu/12/cc1", 1500, false);
	check_file("/bin/sh", 0, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_system),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
