/* libFuzzer harness: CFI unwinding of a copied user stack through a hostile object.
 *
 * The input is an ELF file (which the traced process could have mapped: its CFI and
 * headers are untrusted), then 17 registers and the stack copy.  The file is mapped at a
 * fixed address in a one-process address space and the stack unwound with the
 * recorder's record layout, exactly as finalize does.
 * Properties:
 *   - no crash, hang, leak or undefined behaviour (ASan/UBSan);
 *   - at most the frames asked for, at least the sampled pc (or the frames the kernel
 *     walked, which the input also gives); exactly one outcome counted. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/records.h"
#include "finalize/unwind.h"
#include "symbolize/addrspace.h"
#include "fuzz_common.h"

#define TAIL (sizeof(uint64_t) * UREG__COUNT + 512)	/* registers + stack from the input's end */
#define BASE 0x400000ull

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz__init_process();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t rec[sizeof(struct rec_cpu_sample) + PROBEX_MAX_FRAMES * 8 + sizeof(struct rec_ustack) + 64 + 512];
	uint32_t off = rec_spool_ustack_off(sizeof(struct rec_cpu_sample), 0), n, space;
	struct rec_ustack *u = (struct rec_ustack *)(rec + off);
	struct rec_cpu_sample *h = (struct rec_cpu_sample *)rec;
	uint64_t frames[PROBEX_MAX_FRAMES];
	struct unwind_stats st;
	struct addrspace *as;
	struct unwinder *uw;
	uint16_t flags = 0;
	char path[4200];

	if (size < TAIL + 64)
		return 0;
	snprintf(path, sizeof(path), "%s/obj", fz__workdir());
	if (fz__write_file(path, data, size - TAIL))
		return 0;
	memset(rec, 0, sizeof(rec));
	h->h.kind = REC_CPU_SAMPLE;
	h->h.tid = h->h.tgid = 100;
	h->h.ts = 10;
	h->h.flags = REC_F_USTACK_COPY;
	memcpy(u->regs, data + size - TAIL, sizeof(u->regs));
	/* Up to 7 frames the kernel walked (taken from the stack bytes), then the copy. */
	u->nwalk = data[size - TAIL - 1] & 7;
	u->wflags = data[size - TAIL - 2] & 3;
	u->len = data[size - TAIL - 3] & 1 ? 512 : 0;
	memcpy(rec + off + sizeof(*u), data + size - 512, u->nwalk * 8);
	memcpy(rec + off + sizeof(*u) + u->nwalk * 8, data + size - 512, u->len);
	/* Code and stack where the registers can point: the file's first 1 MiB at BASE,
	 * and the stack copy at the sampled sp. */
	as = addrspace__new();
	FZ_CHECK(as != NULL, "no memory");
	addrspace__add_exec(as, 1, 100);
	addrspace__add_mmap(as, 2, 100, BASE, 1u << 20, 0, path, NULL, 0);
	FZ_CHECK(addrspace__build(as) == 0, "addrspace__build failed");
	space = addrspace__space_at(as, 100, 10);
	uw = unwinder__new(as);
	FZ_CHECK(uw != NULL, "no memory");
	n = unwinder__record(uw, space, rec, off + sizeof(*u) + u->nwalk * 8 + u->len, sizeof(*h),
			     frames, 16, &flags);
	unwinder__stats(uw, &st);
	FZ_CHECK((n >= 1 || (!u->len && !u->nwalk)) && n <= 16, "%u frames", n);
	FZ_CHECK(n >= u->nwalk, "%u frames, %u walked", n, u->nwalk);
	FZ_CHECK(st.records == 1 && st.whole + st.no_copy + st.copy_end + st.no_module + st.failed + st.depth == 1,
		 "outcomes counted: %llu", (unsigned long long)(st.whole + st.no_copy + st.copy_end + st.no_module + st.failed + st.depth));
	unwinder__free(uw);
	addrspace__free(as);
	return 0;
}
