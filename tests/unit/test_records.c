/* The record layouts shared by BPF and user space (bpf/records.h): every kind has a fixed
 * size, so the recorder spools its stack copy packed where the unwinder reads it (a kind
 * missing there was spooled unpacked and unwound from garbage registers). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bpf/records.h"

static void test_every_kind_has_a_fixed_size(void **state)
{
	for (unsigned int k = 1; k < REC__COUNT; k++) {
		uint32_t fixed = rec_fixed_size((uint8_t)k);

		assert_true(fixed >= sizeof(struct rec_hdr));
		assert_true(fixed <= REC_MAX_FIXED);
		assert_int_equal(fixed % 8, 0);
	}
	assert_int_equal(rec_fixed_size(0), 0);
	assert_int_equal(rec_fixed_size(REC__COUNT), 0);
	assert_int_equal(rec_fixed_size(REC_WAKER), sizeof(struct rec_waker));
	assert_int_equal(rec_fixed_size(REC_SYSCALL_PATH), sizeof(struct rec_syscall_path));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kind_has_a_fixed_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
