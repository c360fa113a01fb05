/* libFuzzer harness: what probex reads of a CPython process, from bytes it cannot trust.
 *
 * The input is a code object as the recorder spools it (SPOOL_PYCODE: names and a line
 * table read from a live process, which may be freed or corrupt memory) and a stack
 * record's Python section (the kernel's walk of a frame chain being changed while read).
 * Each goes through the finalizer's reader: pyframes__add_item, pyframes__merge (Python
 * frames in place of the eval-loop frames) and pyframes__label, and the line table
 * through pyline__find for every version.  Properties:
 *   - a merged stack never grows past its room, and every frame is a native one from the
 *     record or a Python frame;
 *   - a label is a NUL-free line with no separator byte, and a frame whose code object is
 *     not the one read is never given its name;
 *   - no crash, leak or undefined behaviour (ASan/UBSan). */
#include <stdlib.h>
#include <string.h>

#include "bpf/pysection.h"
#include "finalize/pyframes.h"
#include "fuzz_common.h"
#include "spool/spool.h"
#include "symbolize/pyline.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz__init_process();
	return 0;
}

static const uint16_t versions[] = { 0x0308, 0x0309, 0x030a, 0x030b, 0x030c, 0x030d };

/* Every version's reader on the bytes as a line table, at offsets from the input. */
static void lines(const uint8_t *d, size_t n)
{
	uint32_t off = n >= 4 ? (uint32_t)d[0] | (uint32_t)d[1] << 8 : 0;

	for (size_t v = 0; v < sizeof(versions) / sizeof(versions[0]); v++) {
		int32_t l = pyline__find(versions[v], d, (uint32_t)n, 7, off);

		FZ_CHECK(l >= -1, "a line is a line or -1, got %d", l);
		pyline__find(versions[v], d, (uint32_t)n, 7, off * 7);
	}
}

#define NATIVE 6

/* A CPU-sample record walked in the kernel (NATIVE frames, two of them in the eval loop)
 * with a Python section of frames from the input. */
static uint32_t record(uint8_t *buf, size_t cap, const uint8_t *d, size_t n)
{
	struct rec_cpu_sample *r = (struct rec_cpu_sample *)buf;
	uint64_t *fr = (uint64_t *)(r + 1);
	struct rec_pystack *s = (struct rec_pystack *)(fr + NATIVE);
	struct py_frame *pf = (struct py_frame *)(s + 1);
	uint32_t m = n / sizeof(*pf);

	if (m > PY_MAX_FRAMES)
		m = PY_MAX_FRAMES;
	if (sizeof(*r) + NATIVE * 8 + sizeof(*s) + m * sizeof(*pf) > cap)
		return 0;
	memset(r, 0, sizeof(*r));
	r->h.kind = REC_CPU_SAMPLE;
	r->h.tgid = r->h.tid = 42;
	r->h.ts = 1000;
	r->h.ustack_n = NATIVE;
	r->h.flags = REC_F_PYSTACK;
	for (int i = 0; i < NATIVE; i++)
		fr[i] = 0x400000 + 0x1000 * (uint64_t)i + (i == 1 || i == 3 ? 0x10000 : 0);
	s->n = (uint16_t)m;
	s->flags = 0;
	s->magic = PY_SECTION_MAGIC;
	memcpy(pf, d, m * sizeof(*pf));
	return (uint32_t)(sizeof(*r) + NATIVE * 8 + sizeof(*s) + m * sizeof(*pf));
}

static void merge(const uint8_t *d, size_t n)
{
	struct spool_pycode interp = { .tgid = 42, .version = 0x030b, .flags = PYCODE_INTERP,
				       .code = 0x410000, .table_len = 0x1000 };
	struct pyframes *p = pyframes__new();
	size_t half = n / 2;
	uint8_t rec[sizeof(struct rec_cpu_sample) + NATIVE * 8 + PY_SECTION_MAX];
	uint64_t frames[NATIVE + PY_MAX_FRAMES];
	uint32_t len, fn = NATIVE;

	FZ_CHECK(p, "out of memory");
	/* The first half as a spooled code object, twice: as given, and named tgid 42's. */
	FZ_CHECK(!pyframes__add_item(p, d, (uint32_t)half), "add_item failed");
	if (half >= sizeof(struct spool_pycode)) {
		uint8_t *c = malloc(half);

		FZ_CHECK(c, "out of memory");
		memcpy(c, d, half);
		((struct spool_pycode *)c)->tgid = 42;
		((struct spool_pycode *)c)->epoch = 0;
		FZ_CHECK(!pyframes__add_item(p, c, (uint32_t)half), "add_item failed");
		free(c);
	}
	FZ_CHECK(!pyframes__add_item(p, &interp, sizeof(interp)), "add_item failed");
	pyframes__build(p);
	len = record(rec, sizeof(rec), d + half, n - half);
	if (len) {
		const uint64_t *native = (const uint64_t *)(rec + sizeof(struct rec_cpu_sample));

		memcpy(frames, native, NATIVE * 8);
		pyframes__merge(p, (const struct rec_hdr *)rec, len, frames, &fn, NATIVE + PY_MAX_FRAMES);
		FZ_CHECK(fn <= NATIVE + PY_MAX_FRAMES, "merged %u frames into room for %u", fn,
			 NATIVE + PY_MAX_FRAMES);
		for (uint32_t i = 0; i < fn; i++) {
			struct strbuf sb = { 0 };
			bool native_frame = false;

			for (int k = 0; k < NATIVE; k++)
				native_frame |= frames[i] == native[k];
			FZ_CHECK(native_frame || pyframes__is(frames[i]), "frame %u (%#llx) is neither", i,
				 (unsigned long long)frames[i]);
			if (!pyframes__is(frames[i]))
				continue;
			pyframes__label(p, frames[i], &sb);
			FZ_CHECK(sb.s && strlen(sb.s) == sb.len, "a label with a NUL");
			for (size_t k = 0; k < sb.len; k++)
				FZ_CHECK((unsigned char)sb.s[k] >= 0x20, "a control byte in a label");
			strbuf__free(&sb);
		}
	}
	pyframes__free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lines(data, size);
	merge(data, size);
	return 0;
}
