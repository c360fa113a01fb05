/* The shipped hooks: all off (see test_hooks.h). */
#include "common/test_hooks.h"

int test_hooks__consumer_delay_ms(void)
{
	return 0;
}

bool test_hooks__keep_spool(void)
{
	return false;
}

bool test_hooks__no_cfi_rules(void)
{
	return false;
}

bool test_hooks__hash_stacks(void)
{
	return false;
}

bool test_hooks__spool_scan(void)
{
	return false;
}

bool test_hooks__die_after_spawn(void)
{
	return false;
}

bool test_hooks__kallsyms(void)
{
	return false;
}

bool test_hooks__libbpf_loader(void)
{
	return false;
}

int test_hooks__startup_delay_ms(void)
{
	return 0;
}

bool test_hooks__hold_deferred(void)
{
	return false;
}
