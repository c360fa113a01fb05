/* The test build's hooks (build/probex-test): read from PROBEX_TEST_* variables. */
#include <stdlib.h>

#include "common/test_hooks.h"

int test_hooks__consumer_delay_ms(void)
{
	const char *v = getenv("PROBEX_TEST_CONSUMER_DELAY_MS");

	return v ? atoi(v) : 0;
}

bool test_hooks__keep_spool(void)
{
	return getenv("PROBEX_TEST_KEEP_SPOOL") != NULL;
}

bool test_hooks__no_cfi_rules(void)
{
	return getenv("PROBEX_TEST_NO_CFI_RULES") != NULL;
}

bool test_hooks__hash_stacks(void)
{
	return getenv("PROBEX_TEST_HASH_STACKS") != NULL;
}

bool test_hooks__spool_scan(void)
{
	return getenv("PROBEX_TEST_SPOOL_SCAN") != NULL;
}

bool test_hooks__die_after_spawn(void)
{
	return getenv("PROBEX_TEST_DIE_AFTER_SPAWN") != NULL;
}

bool test_hooks__kallsyms(void)
{
	return getenv("PROBEX_TEST_KALLSYMS") != NULL;
}

bool test_hooks__libbpf_loader(void)
{
	return getenv("PROBEX_TEST_LIBBPF_LOADER") != NULL;
}

int test_hooks__startup_delay_ms(void)
{
	const char *v = getenv("PROBEX_TEST_STARTUP_DELAY_MS");

	return v ? atoi(v) : 0;
}

bool test_hooks__hold_deferred(void)
{
	return getenv("PROBEX_TEST_HOLD_DEFERRED") != NULL;
}
