/* User-space symbolization against real binaries: fixtures built with -g (PIE, non-PIE,
 * stripped, separate debug file, shared library, C++) and the system's libc. Addresses come
 * from the files' own symbol tables (elf_fixture.h), not from the code under test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "elf_fixture.h"
#include "symbolize/usym.h"

#define CHAIN_SRC "tests/fixtures/sym_chain.c"
#define LIB_SRC "tests/fixtures/lib/symfx_lib.c"

static int setup(void **state)
{
	*state = usym__new();
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	usym__free(*state);
	return 0;
}

static int lookup(struct usym *u, const char *path, unsigned long long off, struct usym_result *r)
{
	return usym__lookup(u, path, NULL, NULL, 0, off, r);
}

/* fx_inline_site lies in fx_mix's body, inlined into fx_named: outer first. */
static void check_inline_chain(struct usym *u, const char *path, const char *addr_src)
{
	struct usym_result r;

	assert_int_equal(lookup(u, path, sym_offset(addr_src, "fx_inline_site", 0), &r), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.names[0], "fx_named");
	assert_string_equal(r.names[1], "fx_mix");
	assert_true(str_ends_with(r.file, CHAIN_SRC));
	assert_int_equal(r.line, src_line(CHAIN_SRC, "LINE:inline_site"));
}

static void test_inline_chain(void **state)
{
	check_inline_chain(*state, fx_path("sym_chain"), fx_path("sym_chain"));
}

/* main → fx_outer → fx_inner as a stack walk sees it: the leaf's own address and the
 * callers' return addresses minus one. */
static void check_call_chain(struct usym *u, const char *path)
{
	unsigned long long ret = 0, off = 0;
	struct usym_result r;

	assert_int_equal(lookup(u, path, sym_offset(path, "fx_inner", 0), &r), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.names[0], "fx_inner");

	assert_true(elf_call_ret(path, "fx_outer", "fx_inner", &ret));
	assert_true(elf_vaddr_to_offset(path, ret - 1, &off));
	assert_int_equal(lookup(u, path, off, &r), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.names[0], "fx_outer");
	assert_int_equal(r.line, src_line(CHAIN_SRC, "LINE:outer_call"));

	assert_true(elf_call_ret(path, "main", "fx_outer", &ret));
	assert_true(elf_vaddr_to_offset(path, ret - 1, &off));
	assert_int_equal(lookup(u, path, off, &r), 0);
	assert_string_equal(r.names[0], "main");
}

static void test_call_chain(void **state)
{
	check_call_chain(*state, fx_path("sym_chain"));
}

static void test_pie_and_non_pie(void **state)
{
	int type;

	assert_true(elf_type(fx_path("sym_chain"), &type));
	assert_int_equal(type, ET_DYN);
	assert_true(elf_type(fx_path("sym_chain_nopie"), &type));
	assert_int_equal(type, ET_EXEC);
	check_inline_chain(*state, fx_path("sym_chain_nopie"), fx_path("sym_chain_nopie"));
	check_call_chain(*state, fx_path("sym_chain_nopie"));
}

/* clang leaves out .debug_aranges, and lld places text at a vaddr unlike its offset. */
static void test_clang_lld(void **state)
{
	const char *path = fx_path("sym_chain_clang");
	unsigned long long v = 0, off = 0;

	assert_false(elf_has_section(path, ".debug_aranges"));
	assert_true(elf_has_section(path, ".debug_info"));
	assert_true(elf_sym(path, "fx_inner", &v, NULL) && elf_vaddr_to_offset(path, v, &off));
	assert_true(v != off);
	check_inline_chain(*state, path, path);
	check_call_chain(*state, path);
}

static void test_shared_library(void **state)
{
	const char *lib = fx_path("libsymfx.so");
	struct usym_result r;
	int type;

	assert_true(elf_type(lib, &type));
	assert_int_equal(type, ET_DYN);
	assert_int_equal(lookup(*state, lib, sym_offset(lib, "symfx_entry", 0), &r), 0);
	assert_string_equal(r.names[0], "symfx_entry");
	assert_int_equal(lookup(*state, lib, sym_offset(lib, "symfx_hidden", 0), &r), 0);
	assert_string_equal(r.names[0], "symfx_hidden");
	assert_int_equal(lookup(*state, lib, sym_offset(lib, "symfx_inline_site", 0), &r), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.names[0], "symfx_entry");
	assert_string_equal(r.names[1], "symfx_twice");
	assert_true(str_ends_with(r.file, LIB_SRC));
	assert_int_equal(r.line, src_line(LIB_SRC, "LINE:lib_inline_site"));
}

static void check_cxx(struct usym *u, const char *path, const char *syms_from)
{
	struct usym_result r;

	assert_int_equal(lookup(u, path, sym_offset(syms_from, "_ZN9probex_fx7computeEid", 0), &r), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.names[0], "probex_fx::compute(int, double)");
	assert_int_equal(lookup(u, path, sym_offset(syms_from, "_ZNK9probex_fx6Widget5scaleEl", 1), &r), 0);
	assert_string_equal(r.names[0], "probex_fx::Widget::scale(long) const");
}

static void test_cxx_demangled(void **state)
{
	const char *path = fx_path("sym_cxx");
	struct usym_result r;

	check_cxx(*state, path, path);
	/* An inlined template instantiated with a lambda has no linkage name: qualified
	 * DW_AT_name, template arguments included. */
	assert_int_equal(lookup(*state, path, sym_offset(path, "cxx_inline_site", 0), &r), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.names[0], "probex_fx::use_lambda(int)");
	assert_true(!strncmp(r.names[1], "probex_fx::apply_twice<", 23));
	assert_non_null(strstr(r.names[1], "lambda"));
	assert_int_equal(r.line, src_line("tests/fixtures/sym_cxx.cpp", "LINE:cxx_inline_site"));
	assert_int_equal(lookup(*state, fx_path("sym_cxx"), sym_offset(fx_path("sym_cxx"), "main", 0), &r), 0);
	assert_string_equal(r.names[0], "main");
	assert_true(str_ends_with(r.file, "tests/fixtures/sym_cxx.cpp"));
}

/* Without DWARF the ELF symbol table names the function, demangled, with no source line
 * and no inline chain. */
static void test_symtab_fallback(void **state)
{
	const char *path = fx_path("sym_chain_stripped");
	struct usym_result r;

	check_cxx(*state, fx_path("sym_cxx_stripped"), fx_path("sym_cxx"));
	assert_int_equal(lookup(*state, path, sym_offset(path, "fx_inner", 2), &r), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.names[0], "fx_inner");
	assert_null(r.file);
	assert_int_equal(r.line, 0);
	assert_int_equal(lookup(*state, path, sym_offset(path, "fx_outer", 0), &r), 0);
	assert_string_equal(r.names[0], "fx_outer");
}

/* Fedora-style mini-debuginfo: no .symtab, .dynsym without the program's functions, and
 * their symbols in the xz-compressed ELF of .gnu_debugdata (addresses from the unstripped
 * build: same layout). */
static void test_minidebuginfo(void **state)
{
	const char *path = fx_path("sym_chain_minidebug"), *full = fx_path("sym_chain");
	unsigned long long v;
	struct usym_result r;

	assert_false(elf_sym(path, "fx_inner", &v, NULL));
	assert_int_equal(lookup(*state, path, sym_offset(full, "fx_inner", 2), &r), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.names[0], "fx_inner");
	assert_int_equal(lookup(*state, path, sym_offset(full, "fx_outer", 0), &r), 0);
	assert_string_equal(r.names[0], "fx_outer");
}

/* DWARF from a separate file found through .gnu_debuglink; the binary itself keeps no
 * .symtab, so addresses come from the unstripped build (same layout). */
static void test_debuglink(void **state)
{
	unsigned long long v;

	assert_false(elf_sym(fx_path("sym_chain_debuglink"), "fx_inline_site", &v, NULL));
	check_inline_chain(*state, fx_path("sym_chain_debuglink"), fx_path("sym_chain"));
}

/* A debuglink naming another build's debug file is not used: the names come from the
 * symbol table alone (no inline chain, no line), not from mismatched DWARF. */
static void test_debuglink_mismatch(void **state)
{
	const char *path = fx_path("sym_chain_badlink");
	struct usym_result r;

	assert_int_equal(lookup(*state, path, sym_offset(path, "fx_inline_site", 0), &r), 0);
	assert_int_equal(r.n, 1);
	assert_null(r.file);
}

static void test_path_with_spaces(void **state)
{
	check_inline_chain(*state, fx_path("with space/sym chain"), fx_path("sym_chain"));
}

static void test_build_id(void **state)
{
	static const unsigned char known[] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc,
					       0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0x00, 0x11, 0x22, 0x33 };
	const char *path = fx_path("sym_chain_knownid");
	unsigned long long off = sym_offset(path, "fx_inner", 0);
	unsigned char id[64], wrong[sizeof(known)];
	struct usym_stats st;
	struct usym_result r;

	assert_int_equal(usym__read_build_id(path, id, sizeof(id)), sizeof(known));
	assert_memory_equal(id, known, sizeof(known));
	assert_int_equal(usym__read_build_id(path, id, 4), -ERANGE);
	assert_int_equal(usym__read_build_id(fx_path("sym_chain_noid"), id, sizeof(id)), 0);
	assert_int_equal(usym__read_build_id(CHAIN_SRC, id, sizeof(id)), -ENOEXEC);
	assert_int_equal(usym__read_build_id(fx_path("no-such-file"), id, sizeof(id)), -ENOENT);

	/* A file without build-id cannot vouch for one. */
	assert_int_equal(usym__lookup(*state, fx_path("sym_chain_noid"), NULL, known, sizeof(known),
				      sym_offset(fx_path("sym_chain_noid"), "fx_inner", 0), &r), -ESTALE);
	assert_int_equal(lookup(*state, fx_path("sym_chain_noid"), sym_offset(fx_path("sym_chain_noid"), "fx_inner", 0), &r), 0);

	assert_int_equal(usym__lookup(*state, path, NULL, known, sizeof(known), off, &r), 0);
	assert_string_equal(r.names[0], "fx_inner");
	memcpy(wrong, known, sizeof(known));
	wrong[19] ^= 1;
	assert_int_equal(usym__lookup(*state, path, NULL, wrong, sizeof(wrong), off, &r), -ESTALE);
	assert_int_equal(usym__lookup(*state, path, NULL, known, 8, off, &r), -ESTALE);
	usym__stats(*state, &st);
	assert_int_equal(st.build_id_mismatch, 3);
}

/* One object per build-id: a copy of a binary under another path (another inode) is the
 * same object, opened and indexed once; a build-id already open answers for any path. */
static void test_same_build_id(void **state)
{
	const char *a = fx_path("sym_chain_stripped"), *b = fx_path("with space/sym chain");
	const char *c = fx_path("sym_chain");
	unsigned long long off = sym_offset(a, "fx_inner", 0);
	unsigned char id[64];
	struct usym_result ra, rb;
	struct usym_stats st;
	struct stat sa, sb;
	int len;

	/* The stripped copy has the same build-id (strip keeps it) but is another file. */
	assert_int_equal(stat(a, &sa), 0);
	assert_int_equal(stat(c, &sb), 0);
	assert_true(sa.st_ino != sb.st_ino);
	len = usym__read_build_id(a, id, sizeof(id));
	assert_true(len > 0);
	assert_int_equal(lookup(*state, a, off, &ra), 0);
	assert_string_equal(ra.names[0], "fx_inner");
	/* Known by build-id, the path is not even opened. */
	assert_int_equal(usym__lookup(*state, "/nonexistent/prog", NULL, id, len, off, &rb), 0);
	assert_ptr_equal(ra.names, rb.names);
	usym__stats(*state, &st);
	assert_int_equal(st.files_opened, 1);
	assert_int_equal(st.objects_indexed, 1);	/* no DWARF in the stripped one: symbols */
	assert_int_equal(st.cache_hits, 1);

	/* A copy with its own DWARF is not answered from the stripped module (that would
	 * lose inline frames); from then on it answers for the build-id, copies included. */
	assert_int_equal(lookup(*state, c, off, &rb), 0);
	assert_ptr_not_equal(ra.names, rb.names);
	assert_int_equal(usym__lookup(*state, b, NULL, id, len, off, &ra), 0);
	assert_ptr_equal(ra.names, rb.names);
	usym__stats(*state, &st);
	assert_int_equal(st.files_opened, 2);
	assert_int_equal(st.cache_hits, 2);
}

static void test_errors(void **state)
{
	const char *path = fx_path("sym_chain");
	struct usym_stats st;
	struct usym_result r;
	struct stat sb;

	assert_int_equal(lookup(*state, fx_path("no-such-file"), 0x1000, &r), -ENXIO);
	assert_int_equal(lookup(*state, "/", 0x1000, &r), -ENOEXEC);
	assert_int_equal(lookup(*state, CHAIN_SRC, 0x10, &r), -ENOEXEC);
	/* Past every PT_LOAD, and inside one (the ELF header) where nothing is named. */
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(lookup(*state, path, sb.st_size + 0x100000, &r), -ENOENT);
	assert_int_equal(lookup(*state, path, 0x10, &r), -ENOENT);
	/* Failures are cached like successes. */
	assert_int_equal(lookup(*state, path, 0x10, &r), -ENOENT);
	assert_int_equal(lookup(*state, fx_path("no-such-file"), 0x2000, &r), -ENXIO);
	usym__stats(*state, &st);
	assert_int_equal(st.lookups, 7);
	assert_int_equal(st.unresolved, 7);
	assert_int_equal(st.resolved, 0);
	assert_int_equal(st.cache_hits, 1);
	assert_int_equal(st.files_opened, 1);
	assert_int_equal(st.files_failed, 3);
}

static void test_cache(void **state)
{
	const char *path = fx_path("sym_chain");
	unsigned long long off = sym_offset(path, "fx_inline_site", 0);
	struct usym_result a, b;
	struct usym_stats st;

	assert_int_equal(lookup(*state, path, off, &a), 0);
	assert_int_equal(lookup(*state, path, off, &b), 0);
	assert_ptr_equal(a.names, b.names);
	assert_int_equal(lookup(*state, path, sym_offset(path, "fx_inner", 0), &b), 0);
	/* The same file through another route (root prefix, alias path) is not reopened. */
	assert_int_equal(usym__lookup(*state, path, "/proc/self/root", NULL, 0, off, &b), 0);
	assert_ptr_equal(a.names, b.names);
	usym__stats(*state, &st);
	assert_int_equal(st.lookups, 4);
	assert_int_equal(st.cache_hits, 2);
	assert_int_equal(st.resolved, 4);
	assert_int_equal(st.files_opened, 1);
	assert_int_equal(st.files_failed, 0);
}

/* A container root prefix; when that root is gone, our own namespace's file is used only if
 * a build-id confirms it is the same file. */
static void test_root_prefix(void **state)
{
	const char *path = fx_path("sym_chain_knownid");
	unsigned long long off = sym_offset(path, "fx_inner", 0);
	char abs[PATH_MAX];
	unsigned char id[64];
	struct usym_result r;
	int len;

	assert_non_null(realpath(path, abs));
	len = usym__read_build_id(abs, id, sizeof(id));
	assert_true(len > 0);
	assert_int_equal(usym__lookup(*state, abs, "/proc/self/root", NULL, 0, off, &r), 0);
	assert_string_equal(r.names[0], "fx_inner");
	assert_int_equal(usym__lookup(*state, abs, "/proc/999999999/root", NULL, 0, off, &r), -ENXIO);
	assert_int_equal(usym__lookup(*state, abs, "/nonexistent-root", id, len, off, &r), 0);
	assert_string_equal(r.names[0], "fx_inner");
}

/* A file deleted after it was opened keeps resolving; a fresh lookup of the path fails
 * cleanly. */
static void test_deleted_file(void **state)
{
	char dir[] = "/tmp/probex-usym-XXXXXX", path[PATH_MAX + 32], cmd[2 * PATH_MAX + 64];
	const char *src = fx_path("sym_chain");
	struct usym_result r;
	struct usym *fresh;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/copy", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", src, path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(lookup(*state, path, sym_offset(src, "fx_inner", 0), &r), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(lookup(*state, path, sym_offset(src, "fx_inline_site", 0), &r), 0);
	assert_string_equal(r.names[1], "fx_mix");
	fresh = usym__new();
	assert_int_equal(lookup(fresh, path, sym_offset(src, "fx_inner", 0), &r), -ENXIO);
	usym__free(fresh);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

/* Running out of descriptors says nothing about a file: that lookup fails with -EMFILE,
 * the next one (with descriptors back) succeeds instead of a cached failure. */
static void test_fd_exhaustion(void **state)
{
	const char *path = fx_path("sym_chain");
	unsigned long long off = sym_offset(path, "fx_inner", 0);
	struct rlimit old, low;
	struct usym_result r;
	int fds[64], n = 0;

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = count_fds() + 16;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	while (n < 64 && (fds[n] = open("/dev/null", O_RDONLY)) >= 0)
		n++;
	assert_true(n < 64);
	assert_int_equal(lookup(*state, path, off, &r), -EMFILE);
	while (n > 0)
		close(fds[--n]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_int_equal(lookup(*state, path, off, &r), 0);
	assert_string_equal(r.names[0], "fx_inner");
}

/* Descriptors held per file stay few: files stay open for the whole run. */
static void test_fd_budget(void **state)
{
	static const struct {
		const char *file, *syms_from, *sym;
	} cases[] = {
		{ "sym_chain_debuglink", "sym_chain", "fx_inner" },
		{ "sym_cxx", "sym_cxx", "main" },
		{ "libsymfx.so", "libsymfx.so", "symfx_entry" },
		{ "sym_chain_knownid", "sym_chain_knownid", "fx_inner" },
	};
	int before = count_fds(), after;
	struct usym_stats st;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct usym_result r;

		assert_int_equal(lookup(*state, fx_path(cases[i].file),
					sym_offset(fx_path(cases[i].syms_from), cases[i].sym, 0), &r), 0);
	}
	after = count_fds();
	usym__stats(*state, &st);
	printf("%lu files hold %d descriptors\n", st.files_opened, after - before);
	assert_int_equal(st.files_opened, 4);
	assert_true(after - before <= 3 * (int)st.files_opened);
}

static int find_libc(struct dl_phdr_info *info, size_t size, void *data)
{
	if (strstr(info->dlpi_name, "/libc.so")) {
		snprintf(data, PATH_MAX, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

/* malloc in the system libc, by its dynamic symbol's address. With libc debug info
 * installed (libc6-dbg) DWARF names the implementation __libc_malloc, an alias at the same
 * address; without it, .dynsym says malloc. */
static void test_libc_malloc(void **state)
{
	char libc[PATH_MAX] = "";
	unsigned long long off;
	struct usym_result r;

	assert_int_equal(dl_iterate_phdr(find_libc, libc), 1);
	off = sym_offset(libc, "malloc", 0);
	assert_int_equal(lookup(*state, libc, off, &r), 0);
	assert_true(!strcmp(r.names[0], "malloc") || !strcmp(r.names[0], "__libc_malloc"));
	printf("libc %s: malloc → %s (%u names, %s:%d)\n", libc, r.names[0], r.n, r.file ? r.file : "-", r.line);
	/* An assembler syscall wrapper (no DWARF function): a public alias, not __GI_. */
	assert_int_equal(lookup(*state, libc, sym_offset(libc, "munmap", 4), &r), 0);
	assert_true(strstr(r.names[0], "munmap") && strncmp(r.names[0], "__GI_", 5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_inline_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_call_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pie_and_non_pie, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clang_lld, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_library, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cxx_demangled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symtab_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_minidebuginfo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_debuglink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_debuglink_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_with_spaces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_root_prefix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deleted_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_libc_malloc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_exhaustion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_budget, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
