/* Unit tests for finalize/labels: the kernel part of a stack, without the tracing
 * machinery at its leaf end, whether our BPF program there is named or not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "finalize/labels.h"
#include "symbolize/addrspace.h"
#include "symbolize/ksym.h"

static const char table[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T exc_page_fault\n"
	"ffffffff81000200 T asm_exc_page_fault\n"
	"ffffffff81000300 T bpf_trace_run3\n"
	"ffffffff81000400 T htab_map_update_elem\n"
	"ffffffff81001000 T _etext\n";

#define EXC_PAGE_FAULT		0xffffffff81000110ull
#define ASM_EXC_PAGE_FAULT	0xffffffff81000210ull
#define BPF_TRACE_RUN3		0xffffffff81000310ull
#define HTAB_UPDATE		0xffffffff81000410ull
#define PROG			0xffffffffc0002000ull	/* a BPF program, named or not */
#define SUBPROG			0xffffffffc0004000ull	/* a subprogram it calls */

struct fx {
	struct ksyms *ks;
	struct addrspace *as;
	struct labeler *l;
};

static int setup(void **state)
{
	static struct fx f;
	char path[] = "/tmp/probex-labels-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, table, strlen(table)) != (ssize_t)strlen(table))
		return -1;
	close(fd);
	f.ks = ksyms__load(path);
	unlink(path);
	f.as = addrspace__new();
	if (!f.ks || !f.as || addrspace__build(f.as))
		return -1;
	f.l = labeler__new(f.as, f.ks);
	*state = &f;
	return f.l ? 0 : -1;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	labeler__free(f->l);
	addrspace__free(f->as);
	ksyms__free(f->ks);
	return 0;
}

/* The labels of a kernel stack (leaf first), root first, joined by '|'. */
static const char *kernel_labels(struct fx *f, const uint64_t *frames, uint32_t n)
{
	static char buf[512];
	struct stack_entry e = { .n = n, .frames = frames };
	struct strbuf out = { 0 };

	assert_int_equal(labeler__kernel(f->l, &e, &out, NULL), 0);
	snprintf(buf, sizeof(buf), "%.*s", (int)out.len, out.s);
	for (char *p = buf; *p; p++)
		if (*p == LABEL_SEP)
			*p = '|';
	strbuf__free(&out);
	return buf;
}

/* A recovered spool: our program is no longer in kallsyms, its frame an address. */
static void test_unnamed_program_trimmed(void **state)
{
	const uint64_t frames[] = { PROG, BPF_TRACE_RUN3, EXC_PAGE_FAULT, ASM_EXC_PAGE_FAULT };

	assert_string_equal(kernel_labels(*state, frames, 4), "|[kernel]|asm_exc_page_fault|exc_page_fault");
}

/* While recording: the program is named, bpf_prog_TAG_NAME. */
static void test_named_program_trimmed(void **state)
{
	struct fx *f = *state;
	const struct ksym_add prog = { PROG - 0x100, 0x1000, "bpf_prog_0123456789abcdef_sys_exit", "bpf" };
	const uint64_t frames[] = { PROG, BPF_TRACE_RUN3, EXC_PAGE_FAULT, ASM_EXC_PAGE_FAULT };

	assert_int_equal(ksyms__add(f->ks, &prog, 1), 0);
	assert_string_equal(kernel_labels(f, frames, 4), "|[kernel]|asm_exc_page_fault|exc_page_fault");
}

/* Our own program, named as ours, is tracing machinery too. */
static void test_probex_program_trimmed(void **state)
{
	struct fx *f = *state;
	const struct ksym_add prog = { PROG - 0x100, 0x1000, "probex:sys_exit", "bpf" };
	const uint64_t frames[] = { PROG, BPF_TRACE_RUN3, EXC_PAGE_FAULT, ASM_EXC_PAGE_FAULT };

	assert_int_equal(ksyms__add(f->ks, &prog, 1), 0);
	assert_string_equal(kernel_labels(f, frames, 4), "|[kernel]|asm_exc_page_fault|exc_page_fault");
}

/* A CPU sample that interrupts our program in a subprogram, in a kernel function it
 * calls: the traced code's cost, kept whole, our functions named. */
static void test_sample_in_probex_subprogram_kept(void **state)
{
	struct fx *f = *state;
	const struct ksym_add progs[] = {
		{ PROG - 0x100, 0x1000, "probex:sys_exit", "bpf" },
		{ SUBPROG - 0x40, 0x200, "probex:stat_add", "bpf" },
	};
	const uint64_t frames[] = { HTAB_UPDATE, SUBPROG, PROG, BPF_TRACE_RUN3, EXC_PAGE_FAULT,
				    ASM_EXC_PAGE_FAULT };
	struct stack_entry e = { .n = 6, .frames = frames };
	struct strbuf mods = { 0 }, out = { 0 };

	assert_int_equal(ksyms__add(f->ks, progs, 2), 0);
	assert_string_equal(kernel_labels(f, frames, 6),
			    "|[kernel]|asm_exc_page_fault|exc_page_fault|bpf_trace_run3|"
			    "probex:sys_exit [bpf]|probex:stat_add [bpf]|htab_map_update_elem");
	assert_int_equal(labeler__kernel(f->l, &e, &out, &mods), 0);
	for (size_t i = 0; i < mods.len; i++)
		if (mods.s[i] == LABEL_SEP)
			mods.s[i] = '|';
	assert_true(mods.len > 0 && strstr(mods.s, "|bpf|bpf|[kernel.kallsyms]"));
	strbuf__free(&out);
	strbuf__free(&mods);
}

/* An unnamed leaf that no tracing frame follows is the traced code's: kept. */
static void test_unnamed_leaf_kept(void **state)
{
	const uint64_t frames[] = { 0xffffffffc0900000ull, EXC_PAGE_FAULT, ASM_EXC_PAGE_FAULT };

	assert_string_equal(kernel_labels(*state, frames, 3),
			    "|[kernel]|asm_exc_page_fault|exc_page_fault|0xffffffffc0900000");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unnamed_program_trimmed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_named_program_trimmed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unnamed_leaf_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probex_program_trimmed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_in_probex_subprogram_kept, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
