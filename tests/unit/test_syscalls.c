/* The syscall vocabulary: the generated name table, --syscalls parsing, and the event
 * type ids syscalls get in the trace. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "record/syscall_select.h"
#include "trace/schema.h"
#include "trace/syscalls.h"

static int count_on(const uint8_t *f)
{
	int n = 0;

	for (int i = 0; i < PROBEX_SYSCALL_MAX; i++)
		n += (f[i] & SYSF_ON) != 0;
	return n;
}

static void test_names_from_the_headers(void **state)
{
	assert_string_equal(syscall__name(0), "read");
	assert_string_equal(syscall__name(257), "openat");
	assert_int_equal(syscall__nr("newfstatat"), 262);
	assert_int_equal(syscall__nr("nosuchcall"), -1);
	for (unsigned int i = 0; i < PROBEX_SYSCALL_MAX; i++)
		if (syscall__name(i))
			assert_int_equal(syscall__nr(syscall__name(i)), (int)i);
}

static void test_parse(void **state)
{
	uint8_t f[PROBEX_SYSCALL_MAX];
	char bad[64];

	assert_int_equal(syscalls__parse("reference", f, bad, sizeof(bad)), 0);
	assert_int_equal(count_on(f), 10);
	assert_true(f[0] & SYSF_ON);
	assert_false(f[257] & SYSF_ON);
	assert_int_equal(syscalls__parse("all", f, bad, sizeof(bad)), 0);
	/* all but the probe trampolines' calls, which name themselves when asked for */
	assert_int_equal(count_on(f), PROBEX_SYSCALL_MAX - 2);
	assert_false(f[335] & SYSF_ON);	/* uretprobe */
	assert_false(f[336] & SYSF_ON);	/* uprobe */
	assert_int_equal(syscalls__parse("uretprobe,mseal", f, bad, sizeof(bad)), 0);
	assert_true((f[335] & SYSF_ON) && (f[462] & SYSF_ON));
	assert_int_equal(syscalls__parse("all", f, bad, sizeof(bad)), 0);
	assert_int_equal(f[257], SYSF_ON | SYSF_PATH1);	/* openat's path is its 2nd argument */
	assert_int_equal(f[59], SYSF_ON | SYSF_PATH0);	/* execve */
	assert_int_equal(f[19], SYSF_ON | SYSF_IOV);	/* readv */
	assert_int_equal(f[46], SYSF_ON | SYSF_MSG);	/* sendmsg */
	assert_int_equal(syscalls__parse("%net,close", f, bad, sizeof(bad)), 0);
	assert_true(f[41] & SYSF_ON);	/* socket */
	assert_true(f[3] & SYSF_ON);	/* close */
	assert_false(f[0] & SYSF_ON);
	assert_int_equal(syscalls__parse("openat,nosuchcall", f, bad, sizeof(bad)), -EINVAL);
	assert_string_equal(bad, "nosuchcall");
	assert_int_equal(syscalls__parse("%bogus", f, bad, sizeof(bad)), -EINVAL);
	assert_string_equal(bad, "%bogus");
	assert_int_equal(syscalls__parse("read,,write", f, bad, sizeof(bad)), -EINVAL);
	assert_int_equal(syscalls__parse("read,", f, bad, sizeof(bad)), -EINVAL);
	assert_int_equal(syscalls__parse("", f, bad, sizeof(bad)), -EINVAL);
}

static void test_event_types(void **state)
{
	/* The reference's syscalls keep their ids and strings; others get their own. */
	assert_int_equal(event_type__syscall(0, false), EV_READ_ENTER);
	assert_int_equal(event_type__syscall(426, true), EV_IO_URING_ENTER_EXIT);
	assert_string_equal(event_type__name(event_type__syscall(257, false)), "syscall_openat_enter");
	assert_string_equal(event_type__name(event_type__syscall(257, true)), "syscall_openat_exit");
	assert_string_equal(event_type__name(EV_OFF_CPU), "off_cpu");
	assert_int_equal(event_type__syscall(PROBEX_SYSCALL_MAX, false), -1);
	/* Every type a trace can hold has a name that gives its id back. */
	assert_int_equal(event_type__id("syscall_read_exit"), EV_READ_EXIT);
	assert_int_equal(event_type__id("syscall_openat_exit"), event_type__syscall(257, true));
	assert_int_equal(event_type__id("off_cpu"), EV_OFF_CPU);
	assert_int_equal(event_type__id("syscall_nosuch_exit"), -1);
	/* The fixed types' enum, for the viewer: the others are not among them. */
	assert_int_equal(event_type__from_name("syscall_read_exit"), EV_READ_EXIT);
	assert_int_equal(event_type__from_name("syscall_openat_exit"), -1);
	/* Every id has a distinct string, except the reference syscalls' generic twins, which
	 * are never written. */
	for (int i = 0; i < EV_ALL_COUNT; i++)
		assert_non_null(event_type__name(i));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_from_the_headers),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_event_types),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
