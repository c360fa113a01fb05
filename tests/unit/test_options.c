/* Command-line parsing: reference-compatible flags, usage errors, command capture. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>
#include <string.h>

#include "cli/options.h"

/* The parsed options point into argv, so it must outlive the assertions: static. */
#define PARSE(o, ...)                                                                  \
	({                                                                              \
		static char *argv_[] = { "probex", __VA_ARGS__, NULL };                  \
		opts__parse(o, (int)(sizeof(argv_) / sizeof(argv_[0])) - 1, argv_);      \
	})

static void test_defaults_and_command(void **state)
{
	struct probex_opts o;

	assert_int_equal(PARSE(&o, "--", "ls", "-la"), OPTS_RUN);
	assert_int_equal(o.cmd_argc, 2);
	assert_string_equal(o.cmd[0], "ls");
	assert_string_equal(o.cmd[1], "-la");
	assert_int_equal(o.port, 8080);
	assert_string_equal(o.bind, "127.0.0.1");
	assert_int_equal(o.sample_freq, 1999);
	assert_int_equal(o.stacks, STACKS_SAMPLED);
}

static void test_command_flags_stay_with_command(void **state)
{
	struct probex_opts o;

	/* Without --, everything after the first positional belongs to the command. */
	assert_int_equal(PARSE(&o, "-o", "x.parquet", "dd", "-o", "y"), OPTS_RUN);
	assert_string_equal(o.output, "x.parquet");
	assert_int_equal(o.cmd_argc, 3);
	assert_string_equal(o.cmd[1], "-o");
}

static void test_usage_errors(void **state)
{
	struct probex_opts o;

	assert_int_equal(PARSE(&o, "--sample-freq", "0", "true"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--sample-freq", "abc", "true"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "-p", "70000", "true"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--view", "f.parquet", "true"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--view", "f.parquet", "--no-viewer"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--stacks", "some", "true"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--ringbuf-size", "1000", "true"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--bogus", "true"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "-o"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "-q"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--syscalls", "openat,nosuchcall", "true"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--pid", "12", "true"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--pid", "12", "-a"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--pid", "12,x"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--pid", "-3"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--pid", "12,"), OPTS_USAGE);
}

static void test_tracing_scope(void **state)
{
	struct probex_opts o;

	assert_int_equal(PARSE(&o, "--pid", "12,345"), OPTS_RUN);
	assert_int_equal(o.npids, 2);
	assert_int_equal(o.pids[1], 345);
	assert_int_equal(o.cmd_argc, 0);
	assert_int_equal(PARSE(&o, "-a"), OPTS_RUN);
	assert_true(o.all_cpus);
	assert_int_equal(PARSE(&o, "-a", "sleep", "1"), OPTS_RUN);
	assert_int_equal(o.cmd_argc, 2);
	assert_int_equal(PARSE(&o, "true"), OPTS_RUN);
	assert_int_equal(o.sys_flags[257], SYSF_ON | SYSF_PATH1);	/* default: every syscall */
	assert_int_equal(o.offcpu_min_us, 10);
	assert_int_equal(PARSE(&o, "--syscalls=reference", "--offcpu-min", "0", "true"), OPTS_RUN);
	assert_int_equal(o.sys_flags[257], 0);
	assert_int_equal(o.sys_flags[0], SYSF_ON);
	assert_int_equal(o.offcpu_min_us, 0);
}

static void test_view_mode(void **state)
{
	struct probex_opts o;

	assert_int_equal(PARSE(&o, "--view", "t.parquet", "-p", "0", "--bind", "0.0.0.0"), OPTS_RUN);
	assert_string_equal(o.view_file, "t.parquet");
	assert_int_equal(o.port, 0);
	assert_string_equal(o.bind, "0.0.0.0");
	assert_int_equal(o.cmd_argc, 0);
}

static void test_stack_options(void **state)
{
	struct probex_opts o;

	assert_int_equal(PARSE(&o, "--stacks", "all", "--stack-interval", "50", "true"), OPTS_RUN);
	assert_int_equal(o.stacks, STACKS_ALL);
	assert_int_equal(o.stack_interval_us, 50);
}

static void test_call_graph_options(void **state)
{
	struct probex_opts o;

	assert_int_equal(PARSE(&o, "true"), OPTS_RUN);
	assert_int_equal(o.call_graph, CG_AUTO);
	assert_int_equal(o.stack_copy_kib, 16);
	assert_int_equal(o.ringbuf_kib, 0);	/* by CPU count */
	assert_int_equal(PARSE(&o, "--call-graph", "fp", "true"), OPTS_RUN);
	assert_int_equal(o.call_graph, CG_FP);
	assert_int_equal(PARSE(&o, "--call-graph", "dwarf", "--stack-copy", "8", "true"), OPTS_RUN);
	assert_int_equal(o.call_graph, CG_DWARF);
	assert_int_equal(o.stack_copy_kib, 8);
	assert_int_equal(PARSE(&o, "--call-graph", "lbr", "true"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--stack-copy", "0", "true"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--stack-copy", "17", "true"), OPTS_USAGE);
}

static void test_long_run_options(void **state)
{
	struct probex_opts o;

	assert_int_equal(PARSE(&o, "--duration", "30", "--max-size", "500M", "true"), OPTS_RUN);
	assert_int_equal(o.duration_s, 30);
	assert_int_equal(o.max_size, 500ull << 20);
	assert_int_equal(PARSE(&o, "--max-size", "2GiB", "true"), OPTS_RUN);
	assert_int_equal(o.max_size, 2ull << 30);
	assert_int_equal(PARSE(&o, "--max-size", "1048576", "true"), OPTS_RUN);
	assert_int_equal(o.max_size, 1048576);
	assert_int_equal(PARSE(&o, "--max-size", "1k", "true"), OPTS_USAGE);	/* below 1M */
	assert_int_equal(PARSE(&o, "--max-size", "1048575", "true"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--max-size", "5X", "true"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--max-size", "-5M", "true"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--max-size", "M", "true"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--max-size", "99999999999T", "true"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--duration", "0", "true"), OPTS_USAGE);
	assert_int_equal(PARSE(&o, "--duration", "1.5", "true"), OPTS_USAGE);
}

/* --probe lowers the default rate only: a rate the user gives stays, either order. */
static void test_probe_sample_freq(void **state)
{
	struct probex_opts o;

	assert_int_equal(PARSE(&o, "--probe", "u:/bin/true:main", "true"), OPTS_RUN);
	assert_int_equal(o.sample_freq, PROBEX_PROBE_SAMPLE_FREQ);
	assert_int_equal(PARSE(&o, "--probe", "u:/bin/true:main", "--sample-freq", "1999", "true"),
			 OPTS_RUN);
	assert_int_equal(o.sample_freq, 1999);
	assert_int_equal(PARSE(&o, "--sample-freq", "4000", "--probe", "tp:sched:sched_switch", "true"),
			 OPTS_RUN);
	assert_int_equal(o.sample_freq, 4000);
	assert_int_equal(PARSE(&o, "--pid", "1", "--probe", "tp:sched:sched_switch"), OPTS_RUN);
	assert_int_equal(o.sample_freq, PROBEX_PROBE_SAMPLE_FREQ);
	assert_int_equal(PARSE(&o, "-a", "true"), OPTS_RUN);
	assert_int_equal(o.sample_freq, 1999);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_command),
		cmocka_unit_test(test_command_flags_stay_with_command),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_view_mode),
		cmocka_unit_test(test_stack_options),
		cmocka_unit_test(test_tracing_scope),
		cmocka_unit_test(test_call_graph_options),
		cmocka_unit_test(test_long_run_options),
		cmocka_unit_test(test_probe_sample_freq),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
