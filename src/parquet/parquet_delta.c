/* DELTA_BINARY_PACKED for INT64 values: sorted timestamps shrink from 8 bytes to a
 * few bits each before ZSTD even sees them.
 *
 * Layout (parquet-format Encodings.md): header <block size> <miniblocks per block>
 * <value count> <first value, zigzag>, then per block <min delta, zigzag>, one bit-width
 * byte per miniblock, and the miniblocks' (delta - min delta) bit-packed LSB first; a
 * partial last miniblock is padded to full size, miniblocks after it are omitted. */
#include <errno.h>
#include <string.h>

#include "parquet/parquet_int.h"

#define BLOCK		128
#define MINIBLOCKS	4
#define MINI		(BLOCK / MINIBLOCKS)

static size_t put_uleb(uint8_t *o, uint64_t v)
{
	size_t n = 0;

	do {
		o[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int bit_width(uint64_t v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

/* Bit-pack 32 values of `width` bits, LSB first. */
static size_t pack32(uint8_t *o, const uint64_t *v, int width)
{
	size_t bytes = (size_t)MINI * width / 8;
	unsigned __int128 acc = 0;
	int bits = 0;
	size_t n = 0;

	if (!width)
		return 0;
	for (int i = 0; i < MINI; i++) {
		acc |= (unsigned __int128)v[i] << bits;
		bits += width;
		while (bits >= 8) {
			o[n++] = (uint8_t)acc;
			acc >>= 8;
			bits -= 8;
		}
	}
	return n == bytes ? n : bytes;
}

size_t pq_delta__bound(size_t n)
{
	/* header + per block: min delta (10) + widths + 128 values of at most 8 bytes */
	return 40 + (n / BLOCK + 1) * (10 + MINIBLOCKS + BLOCK * 8);
}

size_t pq_delta__encode(uint8_t *o, const uint64_t *v, size_t n)
{
	uint64_t d[BLOCK];
	size_t len = 0;

	len += put_uleb(o + len, BLOCK);
	len += put_uleb(o + len, MINIBLOCKS);
	len += put_uleb(o + len, n);
	len += put_uleb(o + len, zigzag(n ? (int64_t)v[0] : 0));
	for (size_t i = 1; i < n; i += BLOCK) {
		size_t m = n - i < BLOCK ? n - i : BLOCK, used = (m + MINI - 1) / MINI;
		int64_t min = INT64_MAX;
		uint8_t *widths;

		for (size_t k = 0; k < m; k++) {
			int64_t delta = (int64_t)(v[i + k] - v[i + k - 1]);	/* wraps like INT64 */

			d[k] = (uint64_t)delta;
			if (delta < min)
				min = delta;
		}
		for (size_t k = 0; k < m; k++)
			d[k] -= (uint64_t)min;
		for (size_t k = m; k < BLOCK; k++)
			d[k] = 0;
		len += put_uleb(o + len, zigzag(min));
		widths = o + len;
		len += MINIBLOCKS;
		for (size_t b = 0; b < MINIBLOCKS; b++) {
			uint64_t or = 0;

			for (size_t k = b * MINI; k < (b + 1) * MINI; k++)
				or |= d[k];
			widths[b] = b < used ? (uint8_t)bit_width(or) : 0;
			if (b < used)
				len += pack32(o + len, d + b * MINI, widths[b]);
		}
	}
	return len;
}
