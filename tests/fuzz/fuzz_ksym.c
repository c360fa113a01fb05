/* libFuzzer harness: a lazy kernel symbol table (symbolize/ksym_lazy.c) fed answers from
 * the input, as if the kernel's "%pS" had printed them.
 *
 * The input is lines of answers; the addresses asked for are taken from the input too
 * (eight bytes at a time, and near each answer's own "+0x" offset).  Properties:
 *   - no crash, hang, leak or undefined behaviour (ASan/UBSan);
 *   - a lookup gives NULL or a non-empty label without line breaks, and the same answer
 *     when asked again;
 *   - asking again for the same addresses is harmless (inconsistent answers, which a
 *     kernel does not give, may leave some of them to be asked again). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/ksym.h"
#include "fuzz_common.h"

struct answers {
	const uint8_t *data;
	size_t size, pos;
	unsigned calls;
};

/* Each asked address gets the input's next line (cycling), cut to the stride. */
static int lookup(void *ctx, const uint64_t *addrs, size_t n, char *out, size_t stride)
{
	struct answers *a = ctx;

	a->calls++;
	for (size_t i = 0; i < n; i++) {
		size_t len = 0;

		(void)addrs;
		if (a->pos >= a->size)
			a->pos = 0;
		while (a->pos + len < a->size && a->data[a->pos + len] != '\n' && len + 1 < stride)
			len++;
		memcpy(out + i * stride, a->data + a->pos, len);
		out[i * stride + len] = '\0';
		a->pos += len + 1;
	}
	return 0;
}

static void check(struct ksyms *k, uint64_t addr)
{
	const char *x = ksyms__label(k, addr, NULL), *y = ksyms__label(k, addr, NULL);

	FZ_CHECK(x == y, "label of %#llx changed", (unsigned long long)addr);
	FZ_CHECK(!x || (*x && !strchr(x, '\n')), "bad label for %#llx", (unsigned long long)addr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct answers a = { .data = data, .size = size };
	struct ksyms *k = ksyms__new_lazy(lookup, &a, NULL);
	uint64_t addrs[200];
	size_t n = 0;
	unsigned calls;

	if (!k || !size) {
		ksyms__free(k);
		return 0;
	}
	for (size_t i = 0; i + 8 <= size && n < 100; i += 8)
		memcpy(&addrs[n++], data + i, 8);
	/* Addresses the answers' own offsets point into, and their neighbours. */
	for (size_t i = 0; i + 3 < size && n < 200; i++) {
		if (memcmp(data + i, "+0x", 3))
			continue;
		addrs[n] = 0xffffffff81000000ULL + strtoull((const char *)data + i + 1, NULL, 16) % 4096;
		n++;
	}
	ksyms__resolve(k, addrs, n);
	calls = a.calls;
	for (size_t i = 0; i < n; i++) {
		check(k, addrs[i]);
		check(k, addrs[i] + 1);
		check(k, addrs[i] - 1);
	}
	ksyms__resolve(k, addrs, n);
	FZ_CHECK(a.calls - calls <= (n + KSYMS_RESOLVE_BATCH - 1) / KSYMS_RESOLVE_BATCH + 1,
		 "%u lookups to ask again for %zu addresses", a.calls - calls, n);
	for (size_t i = 0; i < n; i++)
		check(k, addrs[i]);
	ksyms__free(k);
	return 0;
}
