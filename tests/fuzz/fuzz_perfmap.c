/* libFuzzer harness: JIT maps (/tmp/perf-PID.map), which the traced program writes.
 *
 * The input is parsed in two pieces (maps arrive in chunks while recording), then
 * looked up at addresses taken from the input and at the edges of the address space.
 * Properties:
 *   - no crash, hang, leak or undefined behaviour (ASan/UBSan);
 *   - a lookup gives NULL or a non-empty name of at most PERFMAP_NAME_MAX bytes without
 *     line breaks, and the same answer when asked again. */
#include <stdint.h>
#include <string.h>

#include "symbolize/perfmap.h"
#include "fuzz_common.h"

static void check(struct perfmap *pm, uint64_t addr)
{
	const char *a = perfmap__lookup(pm, addr), *b = perfmap__lookup(pm, addr);
	size_t n;

	FZ_CHECK(a == b, "lookup of %#llx changed", (unsigned long long)addr);
	if (!a)
		return;
	n = strlen(a);
	FZ_CHECK(n > 0 && n <= PERFMAP_NAME_MAX, "name of %zu bytes", n);
	FZ_CHECK(!strchr(a, '\n'), "name with a line break");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfmap *pm = perfmap__new();
	size_t half = size / 2, addrs_n;
	uint64_t addrs[FZ_ADDRS_MAX], entries, bad;

	if (!pm)
		return 0;
	perfmap__add(pm, (const char *)data, half);
	perfmap__add(pm, (const char *)data + half, size - half);
	perfmap__counts(pm, &entries, &bad);
	addrs_n = fz__addresses(data, size, addrs);
	for (size_t i = 0; i < addrs_n; i++)
		check(pm, addrs[i]);
	perfmap__free(pm);
	return 0;
}
