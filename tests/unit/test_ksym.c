/* Kernel symbols: the real /proc/kallsyms (as root), a hand-written table with aliases,
 * init text, modules and gaps, and a restricted (all-zero) table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symbolize/ksym.h"

static const char *write_tmp(const char *content)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/probex-ksym-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
	return path;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The address of a text symbol as /proc/kallsyms lists it, read independently. */
static unsigned long long kallsyms_addr(const char *name)
{
	char line[512], sym[256], type;
	unsigned long long addr, found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && !found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 && !strcmp(sym, name) &&
		    strchr("tT", type))
			found = addr;
	}
	if (f)
		fclose(f);
	return found;
}

static void test_real_kallsyms(void **state)
{
	unsigned long long addr, off = 99, etext;
	struct ksyms *k;
	const char *label;
	double t0, ms;

	if (geteuid() != 0) {
		printf("skip: /proc/kallsyms addresses read as 0 unless root (run the tests as root)\n");
		skip();
	}
	t0 = now_ms();
	k = ksyms__load(NULL);
	ms = now_ms() - t0;
	assert_non_null(k);
	/* The time is printed, not asserted (~40 ms here, 30 of them the kernel formatting the
	 * file): a wall-clock bound fails on a loaded machine; make bench measures speed. */
	printf("loaded %lu kernel text symbols in %.1f ms\n", ksyms__count(k), ms);
	assert_true(ksyms__count(k) > 1000);

	addr = kallsyms_addr("ksys_read");
	assert_true(addr != 0);
	label = ksyms__label(k, addr, &off);
	assert_non_null(label);
	assert_string_equal(label, "ksys_read");
	assert_int_equal(off, 0);
	assert_string_equal(ksyms__label(k, addr + 3, &off), "ksys_read");
	assert_int_equal(off, 3);

	assert_null(ksyms__label(k, 0x1000, &off));
	etext = kallsyms_addr("_etext");
	if (etext)
		assert_null(ksyms__label(k, etext + 64, NULL));
	ksyms__free(k);
}

static const char small_table[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000100 t __pfx_do_thing\n"
	"ffffffff81000110 T do_thing\n"
	"ffffffff81000200 W weak_fn\n"
	"ffffffff81000200 T strong_fn\n"
	"ffffffff81000300 D some_data\n"
	"ffffffff81000400 T last_fn\n"
	"ffffffff81001000 T _etext\n"
	"ffffffff81800000 R some_rodata\n"
	"ffffffff82000000 T _sinittext\n"
	"ffffffff82000010 t init_fn\n"
	"ffffffff82000100 T _einittext\n"
	"ffffffffc0001000 t nvme_irq\t[nvme]\n"
	"ffffffffc0001100 t nvme_poll\t[nvme]\n"
	"ffffffffc0100000 t bpf_prog_6deef7357e7b4530_handler\t[bpf]\n";

static void test_small_table(void **state)
{
	const char *path = write_tmp(small_table);
	struct ksyms *k = ksyms__load(path);
	unsigned long long off = 0;

	unlink(path);
	assert_non_null(k);
	/* Data and rodata are dropped; aliases at one address count once. */
	assert_int_equal(ksyms__count(k), 12);

	assert_null(ksyms__label(k, 0xffffffff80ffffffULL, &off));
	assert_string_equal(ksyms__label(k, 0xffffffff81000000ULL, &off), "startup_64");
	assert_string_equal(ksyms__label(k, 0xffffffff81000108ULL, &off), "__pfx_do_thing");
	assert_string_equal(ksyms__label(k, 0xffffffff81000115ULL, &off), "do_thing");
	assert_int_equal(off, 5);
	assert_string_equal(ksyms__label(k, 0xffffffff81000200ULL, &off), "strong_fn");
	/* A data symbol is no boundary for text. */
	assert_string_equal(ksyms__label(k, 0xffffffff81000350ULL, &off), "strong_fn");
	assert_int_equal(off, 0x150);
	assert_string_equal(ksyms__label(k, 0xffffffff81000fffULL, NULL), "last_fn");
	/* _etext ends kernel text: the gap up to init text belongs to nobody. */
	assert_null(ksyms__label(k, 0xffffffff81001000ULL, &off));
	assert_null(ksyms__label(k, 0xffffffff81500000ULL, &off));
	assert_string_equal(ksyms__label(k, 0xffffffff82000020ULL, &off), "init_fn");
	assert_null(ksyms__label(k, 0xffffffff82000100ULL, &off));
	assert_null(ksyms__label(k, 0xffffffffc0000fffULL, &off));

	/* Modules: "func [module]", no tab, no offset in the label. */
	assert_string_equal(ksyms__label(k, 0xffffffffc0001004ULL, &off), "nvme_irq [nvme]");
	assert_int_equal(off, 4);
	assert_string_equal(ksyms__label(k, 0xffffffffc0001200ULL, &off), "nvme_poll [nvme]");
	/* The module's last symbol does not reach across the gap to the next group. */
	assert_null(ksyms__label(k, 0xffffffffc0001100ULL + KSYMS_TAIL_MAX, &off));
	assert_null(ksyms__label(k, 0xffffffffc00fffffULL, &off));
	assert_string_equal(ksyms__label(k, 0xffffffffc0100010ULL, &off),
			    "bpf_prog_6deef7357e7b4530_handler [bpf]");
	assert_null(ksyms__label(k, 0xffffffffc0100000ULL + KSYMS_TAIL_MAX, &off));
	ksyms__free(k);
}

/* kallsyms read while BPF programs are loaded lists them last, below the modules; lines
 * out of order anywhere must give the same table as the sorted file. */
static const char late_lines_table[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000100 t __pfx_do_thing\n"
	"ffffffff81000110 T do_thing\n"
	"ffffffff81000200 W weak_fn\n"
	"ffffffff81000200 T strong_fn\n"
	"ffffffff81000300 D some_data\n"
	"ffffffff81001000 T _etext\n"
	"ffffffff81800000 R some_rodata\n"
	"ffffffff82000000 T _sinittext\n"
	"ffffffff82000100 T _einittext\n"
	"ffffffffc0001100 t nvme_poll\t[nvme]\n"
	"ffffffffc0100000 t bpf_prog_6deef7357e7b4530_handler\t[bpf]\n"
	"ffffffff82000010 t init_fn\n"
	"ffffffffc0001000 t nvme_irq\t[nvme]\n"
	"ffffffff81000400 T last_fn\n";

static void test_late_lines(void **state)
{
	const char *sorted_path = write_tmp(small_table);
	struct ksyms *a = ksyms__load(sorted_path);
	const char *late_path;
	struct ksyms *b;

	unlink(sorted_path);
	late_path = write_tmp(late_lines_table);
	b = ksyms__load(late_path);
	unlink(late_path);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(ksyms__count(a), ksyms__count(b));
	for (unsigned long long addr = 0xffffffff80fffff0ULL; addr < 0xffffffff82000200ULL;
	     addr += addr < 0xffffffff81002000ULL ? 0x8 : 0x1000) {
		unsigned long long oa = 0, ob = 0;
		const char *la = ksyms__label(a, addr, &oa), *lb = ksyms__label(b, addr, &ob);

		if (!la || !lb) {
			assert_ptr_equal(la, lb);
			continue;
		}
		assert_string_equal(la, lb);
		assert_int_equal(oa, ob);
	}
	assert_string_equal(ksyms__label(b, 0xffffffff81000404ULL, NULL), "last_fn");
	assert_string_equal(ksyms__label(b, 0xffffffffc0001004ULL, NULL), "nvme_irq [nvme]");
	assert_string_equal(ksyms__label(b, 0xffffffffc0001200ULL, NULL), "nvme_poll [nvme]");
	ksyms__free(a);
	ksyms__free(b);
}

/* Symbols added after reading (our BPF programs, loaded after kallsyms was read): found,
 * bounded by their length, and the others unchanged. */
static void test_added(void **state)
{
	const char *path = write_tmp(small_table);
	struct ksyms *k = ksyms__load(path);
	const struct ksym_add add[] = {
		{ 0xffffffffc0200000ULL, 0x100, "bpf_prog_0123456789abcdef_sys_exit", "bpf" },
		{ 0xffffffffc0000100ULL, 0x80, "bpf_prog_fedcba9876543210_cpu_sample", "bpf" },
	};
	unsigned long long off = 0;

	unlink(path);
	assert_non_null(k);
	assert_int_equal(ksyms__add(k, add, 2), 0);
	assert_int_equal(ksyms__count(k), 14);
	assert_string_equal(ksyms__label(k, 0xffffffffc0200010ULL, &off),
			    "bpf_prog_0123456789abcdef_sys_exit [bpf]");
	assert_int_equal(off, 0x10);
	assert_null(ksyms__label(k, 0xffffffffc0200100ULL, &off));
	assert_string_equal(ksyms__label(k, 0xffffffffc000017fULL, NULL),
			    "bpf_prog_fedcba9876543210_cpu_sample [bpf]");
	assert_null(ksyms__label(k, 0xffffffffc0000180ULL, NULL));
	assert_string_equal(ksyms__label(k, 0xffffffffc0001004ULL, NULL), "nvme_irq [nvme]");
	assert_string_equal(ksyms__label(k, 0xffffffff81000115ULL, NULL), "do_thing");
	/* One kallsyms already lists, named otherwise: the added name wins. */
	assert_int_equal(ksyms__add(k, (const struct ksym_add[]){ { 0xffffffffc0100000ULL, 0x40,
			 "probex:handler", "bpf" } }, 1), 0);
	assert_string_equal(ksyms__label(k, 0xffffffffc0100010ULL, NULL), "probex:handler [bpf]");
	ksyms__free(k);
}

/* What an unprivileged reader gets with kptr_restrict: refuse rather than mislabel. */
static void test_zero_table(void **state)
{
	const char *path = write_tmp("0000000000000000 T _stext\n"
				     "0000000000000000 T ksys_read\n"
				     "0000000000000000 t nvme_irq\t[nvme]\n");
	struct ksyms *k;

	errno = 0;
	k = ksyms__load(path);
	unlink(path);
	assert_null(k);
	assert_int_equal(errno, EPERM);
}

static void test_bad_files(void **state)
{
	const char *path;

	errno = 0;
	assert_null(ksyms__load("/nonexistent/kallsyms"));
	assert_int_equal(errno, ENOENT);

	path = write_tmp("");
	errno = 0;
	assert_null(ksyms__load(path));
	assert_int_equal(errno, ENODATA);
	unlink(path);

	path = write_tmp("not a symbol table\n\nffffffff81000000 D only_data\n");
	errno = 0;
	assert_null(ksyms__load(path));
	assert_int_equal(errno, ENODATA);
	unlink(path);
}

/* A fake kernel for the lazy table: answers like %pS for two functions and a module's,
 * hostile text for some addresses, and counts what it is asked. */
struct fake_kernel {
	unsigned calls, asked;
	int fail;
};

static int fake_lookup(void *ctx, const uint64_t *addrs, size_t n, char *out, size_t stride)
{
	struct fake_kernel *fk = ctx;

	fk->calls++;
	if (fk->fail)
		return fk->fail;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = addrs[i];
		char *o = out + i * stride;

		fk->asked++;
		if (a >= 0xffffffff81000100ULL && a < 0xffffffff81000180ULL)
			snprintf(o, stride, "do_read+0x%llx/0x80", (unsigned long long)(a - 0xffffffff81000100ULL));
		else if (a >= 0xffffffff81000180ULL && a < 0xffffffff81000200ULL)
			snprintf(o, stride, "vfs_read.cold+0x%llx/0x80", (unsigned long long)(a - 0xffffffff81000180ULL));
		else if (a >= 0xffffffffc0001000ULL && a < 0xffffffffc0001040ULL)
			snprintf(o, stride, "nvme_irq+0x%llx/0x40 [nvme]", (unsigned long long)(a - 0xffffffffc0001000ULL));
		else if (a == 0xffffffff82000000ULL)
			snprintf(o, stride, "bad+0x10/0x8");		/* offset past the size */
		else if (a == 0xffffffff82000001ULL)
			snprintf(o, stride, "bad+0x100/0x200");		/* offset past the address */
		else if (a == 0xffffffff82000002ULL)
			snprintf(o, stride, "+0x0/0x10");		/* no name */
		else if (a == 0xffffffff82000003ULL)
			snprintf(o, stride, "x+0x0/0x10 [unterminated");
		else if (a == 0xffffffff82000004ULL)
			snprintf(o, stride, "x+0x0/0x10 []");
		else if (a == 0xffffffff82000005ULL)
			snprintf(o, stride, "x+0x0/0xffffffffffffffff");	/* past the address space */
		else if (a == 0xffffffff82000006ULL)
			memset(o, 'a', stride - 1), o[stride - 1] = '\0';
		else
			snprintf(o, stride, "0x%llx", (unsigned long long)a);	/* no symbol */
	}
	return 0;
}

static void test_lazy(void **state)
{
	struct fake_kernel fk = { 0 };
	struct ksyms *k = ksyms__new_lazy(fake_lookup, &fk, NULL);
	const uint64_t stack[] = { 0xffffffff81000110ULL, 0xffffffff81000120ULL, 0xffffffff81000110ULL,
				   0xffffffffc0001004ULL, 0xffffffff81000190ULL, 0xffffffff90000000ULL };
	uint64_t hostile[7], many[200];
	unsigned long long off = 0;

	assert_non_null(k);
	assert_null(ksyms__label(k, stack[0], NULL));
	assert_int_equal(ksyms__resolve(k, stack, 6), 0);
	assert_int_equal(fk.calls, 1);
	assert_int_equal(fk.asked, 5);		/* the repeated address once */
	assert_string_equal(ksyms__label(k, 0xffffffff81000120ULL, &off), "do_read");
	assert_int_equal(off, 0x20);
	assert_string_equal(ksyms__label(k, 0xffffffff8100017fULL, NULL), "do_read");
	assert_string_equal(ksyms__label(k, 0xffffffff81000180ULL, NULL), "vfs_read.cold");
	assert_string_equal(ksyms__label(k, 0xffffffffc0001004ULL, NULL), "nvme_irq [nvme]");
	assert_null(ksyms__label(k, 0xffffffffc0001040ULL, NULL));
	assert_null(ksyms__label(k, 0xffffffff90000000ULL, NULL));
	/* Covered and known-unnamable addresses are not asked again. */
	assert_int_equal(ksyms__resolve(k, stack, 6), 0);
	assert_int_equal(ksyms__resolve(k, (const uint64_t[]){ 0xffffffff81000170ULL }, 1), 0);
	assert_int_equal(fk.calls, 1);
	/* Our BPF programs' symbols, added before labelling, need no question either. */
	assert_int_equal(ksyms__add(k, (const struct ksym_add[]){ { 0xffffffffc0200000ULL, 0x100,
			 "bpf_prog_0123456789abcdef_sys_exit", "bpf" } }, 1), 0);
	assert_int_equal(ksyms__resolve(k, (const uint64_t[]){ 0xffffffffc0200010ULL }, 1), 0);
	assert_int_equal(fk.calls, 1);
	assert_string_equal(ksyms__label(k, 0xffffffffc0200010ULL, NULL),
			    "bpf_prog_0123456789abcdef_sys_exit [bpf]");
	/* Answers that are not "name+0xoff/0xsize[ [module]]" for that address name nothing. */
	for (int i = 0; i < 7; i++)
		hostile[i] = 0xffffffff82000000ULL + i;
	assert_int_equal(ksyms__resolve(k, hostile, 7), 0);
	for (int i = 0; i < 7; i++)
		assert_null(ksyms__label(k, hostile[i], NULL));
	assert_string_equal(ksyms__label(k, 0xffffffff81000110ULL, NULL), "do_read");
	/* More addresses than one call takes: several calls, each address asked once. */
	fk.calls = fk.asked = 0;
	for (int i = 0; i < 200; i++)
		many[i] = 0xffffffff83000000ULL + 16 * (uint64_t)i;
	assert_int_equal(ksyms__resolve(k, many, 200), 0);
	assert_int_equal(fk.asked, 200);
	assert_int_equal(fk.calls, (200 + KSYMS_RESOLVE_BATCH - 1) / KSYMS_RESOLVE_BATCH);
	/* A failing lookup: an error, the addresses stay unnamed and may be asked again. */
	fk.fail = -EIO;
	assert_int_equal(ksyms__resolve(k, (const uint64_t[]){ 0xffffffff81000000ULL }, 1), -EIO);
	assert_null(ksyms__label(k, 0xffffffff81000000ULL, NULL));
	ksyms__free(k);
	/* A table read from a file never asks. */
	assert_int_equal(ksyms__resolve(NULL, stack, 6), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_kallsyms),
		cmocka_unit_test(test_small_table),
		cmocka_unit_test(test_late_lines),
		cmocka_unit_test(test_added),
		cmocka_unit_test(test_zero_table),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_lazy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
