/* RLE / bit-packing hybrid encoding (parquet-format Encodings.md, "RLE"):
 *
 *   run        := bit-packed-run | rle-run
 *   rle-run    := varint(count << 1) value   (value in ceil(width / 8) bytes, LE)
 *   bit-packed := varint(groups << 1 | 1) groups × 8 values packed LSB first
 *
 * Runs are found per group of 8 values: two or more equal groups start an RLE run that
 * then extends value by value; anything else is bit-packed.  This misses runs shorter
 * than 16 or badly aligned ones, which costs a few bytes before ZSTD and keeps the
 * encoder a straight scan.  Only the last bit-packed run of a stream may be padded:
 * readers stop at the page's value count. */
#include <string.h>

#include "parquet/parquet_int.h"

static uint8_t *put_varint(uint8_t *o, uint64_t v)
{
	while (v >= 0x80) {
		*o++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*o++ = (uint8_t)v;
	return o;
}

static uint8_t *put_rle_run(uint8_t *o, size_t count, uint32_t value, int width)
{
	o = put_varint(o, (uint64_t)count << 1);
	for (int nb = 0; nb < width; nb += 8)
		*o++ = (uint8_t)(value >> nb);
	return o;
}

size_t pq_rle__bound(size_t n, int width)
{
	/* every run but the last covers >= 8 values and costs <= 5 header + 4 value bytes
	 * beyond its packed size */
	return (n + 7) / 8 * (size_t)width + (n / 8 + 2) * 10;
}

int pq_rle__width(uint32_t max_value)
{
	return max_value ? 32 - __builtin_clz(max_value) : 0;
}

/* Spread each byte's "is nonzero" into its bit 0, then gather the 8 bits. */
static uint8_t pack8_word(uint64_t x)
{
	x |= x >> 4;
	x |= x >> 2;
	x |= x >> 1;
	x &= 0x0101010101010101ull;
	return (uint8_t)((x * 0x0102040810204080ull) >> 56);
}

uint8_t pq_rle__pack8(const uint8_t *v)
{
	uint64_t x;

	memcpy(&x, v, 8);
	return pack8_word(x);
}

#define DEFINE_RLE(NAME, T)                                                             \
	static uint8_t *NAME##_literal(uint8_t *o, const T *v, size_t cnt, int width)  \
	{                                                                               \
		size_t groups = (cnt + 7) / 8;                                          \
		uint64_t acc = 0;                                                       \
		int nb = 0;                                                             \
                                                                                        \
		if (!cnt)                                                               \
			return o;                                                       \
		o = put_varint(o, (uint64_t)groups << 1 | 1);                           \
		for (size_t i = 0; i < groups * 8; i++) {                               \
			acc |= (uint64_t)(i < cnt ? v[i] : 0) << nb;                    \
			nb += width;                                                    \
			while (nb >= 8) {                                               \
				*o++ = (uint8_t)acc;                                    \
				acc >>= 8;                                              \
				nb -= 8;                                                \
			}                                                               \
		}                                                                       \
		return o;                                                               \
	}                                                                               \
                                                                                        \
	void NAME(struct pq_buf *b, const T *v, size_t n, int width)                    \
	{                                                                               \
		uint8_t *o = b->p + b->len;                                             \
		size_t i = 0, lit = 0;                                                  \
                                                                                        \
		while (i + 8 <= n) {                                                    \
			T x = v[i];                                                     \
			size_t j = i;                                                   \
                                                                                        \
			while (j + 8 <= n && v[j] == x && v[j + 1] == x &&              \
			       v[j + 2] == x && v[j + 3] == x && v[j + 4] == x &&       \
			       v[j + 5] == x && v[j + 6] == x && v[j + 7] == x)         \
				j += 8;                                                 \
			if (j - i < 16) {                                               \
				i += 8;                                                 \
				continue;                                               \
			}                                                               \
			while (j < n && v[j] == x)                                      \
				j++;                                                    \
			o = NAME##_literal(o, v + lit, i - lit, width);                 \
			o = put_rle_run(o, j - i, x, width);                            \
			i = lit = j;                                                    \
		}                                                                       \
		o = NAME##_literal(o, v + lit, n - lit, width);                         \
		b->len = (size_t)(o - b->p);                                            \
	}

DEFINE_RLE(pq_rle__encode_u32, uint32_t)
DEFINE_RLE(pq_rle__encode_u8, uint8_t)

/* Bit-packed run of cnt width-1 values (cnt a multiple of 8 except at the end). */
static uint8_t *bits_literal(uint8_t *o, const uint8_t *v, size_t cnt)
{
	size_t groups = (cnt + 7) / 8, i;
	uint8_t last[8] = { 0 };

	if (!cnt)
		return o;
	o = put_varint(o, (uint64_t)groups << 1 | 1);
	for (i = 0; i + 8 <= cnt; i += 8)
		*o++ = pq_rle__pack8(v + i);
	if (i < cnt) {
		memcpy(last, v + i, cnt - i);
		*o++ = pq_rle__pack8(last);
	}
	return o;
}

static const uint64_t ONES = 0x0101010101010101ull, HIGHS = 0x8080808080808080ull;

/* 1 if all 8 bytes are zero, 2 if none is, 0 if mixed. */
static int word_kind(const uint8_t *v)
{
	uint64_t x;

	memcpy(&x, v, 8);
	if (!x)
		return 1;
	/* classic "has a zero byte" test */
	return ((x - ONES) & ~x & HIGHS) ? 0 : 2;
}

void pq_rle__encode_bits(struct pq_buf *b, const uint8_t *v, size_t n)
{
	uint8_t *o = b->p + b->len;
	size_t i = 0, lit = 0;

	if (!v) {
		if (n)
			o = put_rle_run(o, n, 1, 1);
		b->len = (size_t)(o - b->p);
		return;
	}
	while (i + 8 <= n) {
		int kind = word_kind(v + i);
		size_t j = i;
		bool one = kind == 2;

		if (!kind) {
			i += 8;
			continue;
		}
		while (j + 8 <= n && word_kind(v + j) == kind)
			j += 8;
		if (j - i < 16) {
			i += 8;
			continue;
		}
		while (j < n && (v[j] != 0) == one)
			j++;
		o = bits_literal(o, v + lit, i - lit);
		o = put_rle_run(o, j - i, one, 1);
		i = lit = j;
	}
	o = bits_literal(o, v + lit, n - lit);
	b->len = (size_t)(o - b->p);
}
