/* Knobs for tests (fault injection, keeping intermediate files).  The shipped binary links
 * src/common/test_hooks.c, where every hook is off and nothing reads the environment; the
 * test build (build/probex-test) links tests/hooks/test_hooks.c instead, which reads
 * PROBEX_TEST_* variables.  A user of the shipped binary cannot switch any of them on. */
#ifndef PROBEX_COMMON_TEST_HOOKS_H
#define PROBEX_COMMON_TEST_HOOKS_H

#include <stdbool.h>

/* Milliseconds the ring-buffer consumer sleeps each cycle (a consumer that cannot keep
 * up, to check that drops are counted).  PROBEX_TEST_CONSUMER_DELAY_MS. */
int test_hooks__consumer_delay_ms(void);

/* Keep the spool after a successful finalization (fuzz seeds).  PROBEX_TEST_KEEP_SPOOL. */
bool test_hooks__keep_spool(void);

/* Unwind every copied stack with libdwfl, not the cached CFI rules (to check that both
 * give the same frames).  PROBEX_TEST_NO_CFI_RULES. */
bool test_hooks__no_cfi_rules(void);

/* Read the stacks of a trace that numbers them (stack_trace_id) as if it did not: every
 * row's list, hashed (to check that both give the same answers).  PROBEX_TEST_HASH_STACKS. */
bool test_hooks__hash_stacks(void);

/* SIGKILL probex right after it forked the command, before the command is traced (to
 * check that the stopped command does not outlive it).  PROBEX_TEST_DIE_AFTER_SPAWN. */
bool test_hooks__die_after_spawn(void);

/* Finalize a spool by scanning all of it for its side items, as if its writer had left no
 * index (to check that both give the same trace).  PROBEX_TEST_SPOOL_SCAN. */
bool test_hooks__spool_scan(void);

/* Name kernel frames from /proc/kallsyms, as where the kernel's own lookup cannot run (to
 * check that fallback).  PROBEX_TEST_KALLSYMS. */
bool test_hooks__kallsyms(void);

/* Load the BPF object with libbpf's skeleton, as where the light skeleton cannot load (to
 * check that fallback).  PROBEX_TEST_LIBBPF_LOADER. */
bool test_hooks__libbpf_loader(void);

/* Milliseconds probex waits after arming the command's tracing, before it resumes the
 * command (a wide window for stop requests at start-up, however fast the load is).
 * PROBEX_TEST_STARTUP_DELAY_MS. */
int test_hooks__startup_delay_ms(void);

/* In compare mode, start what is deferred past the compare view's first answers (pairs,
 * the base's names and lifetimes) only when a request waits for it (to check that every
 * endpoint answers right on its first request).  PROBEX_TEST_HOLD_DEFERRED. */
bool test_hooks__hold_deferred(void);

#endif
