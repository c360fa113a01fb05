/* Demangling: known C++ and Rust (legacy and v0) manglings, taken from g++ and rustc output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>
#include <stdlib.h>

#include "symbolize/demangle.h"

static void expect(const char *mangled, const char *want)
{
	char *got = demangle__name(mangled);

	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_cxx(void **state)
{
	expect("_ZN9probex_fx7computeEid", "probex_fx::compute(int, double)");
	expect("_ZNK9probex_fx6Widget5scaleEl", "probex_fx::Widget::scale(long) const");
	expect("_ZNSt6vectorIiSaIiEE9push_backERKi",
	       "std::vector<int, std::allocator<int> >::push_back(int const&)");
	/* Templates: no return type in the label. */
	expect("_Z3maxIiET_S0_S0_", "max<int>(int, int)");
	expect("_ZN12_GLOBAL__N_14helpEv", "(anonymous namespace)::help()");
	/* GCC clones keep their suffix visible, as perf shows them. */
	expect("_Z3foov.cold", "foo() [clone .cold]");
}

static void test_rust_legacy(void **state)
{
	/* The ::h<16 hex> hash is dropped. */
	expect("_ZN1m5inner4work17hde6df1af3edcdaadE", "m::inner::work");
	expect("_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write");
	expect("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h1b2c3d4e5f60718aE",
	       "std::rt::lang_start::{{closure}}");
}

static void test_rust_v0(void **state)
{
	/* Crate disambiguators (Cs...) are dropped. */
	expect("_RNvNtCskK7mfDs1mzF_1m5inner4work", "m::inner::work");
	expect("_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeNtNtCs1234_5alloc6string6StringECsjrHSEGnQ3l9_3std",
	       "core::ptr::drop_in_place::<alloc::string::String>");
}

static void test_not_mangled(void **state)
{
	expect("main", NULL);
	expect("__libc_malloc", NULL);
	expect("_start", NULL);
	expect("", NULL);
	expect(NULL, NULL);
	/* Looks mangled, is not. */
	expect("_Zbogus", NULL);
	expect("_Rbogus", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cxx),
		cmocka_unit_test(test_rust_legacy),
		cmocka_unit_test(test_rust_v0),
		cmocka_unit_test(test_not_mangled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
