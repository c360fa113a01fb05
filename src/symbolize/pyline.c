/* CPython line tables (pyline.h): the formats of Objects/lnotab_notes.txt and
 * Objects/locations.md of each version, read without trusting a byte of them. */
#include <stdint.h>

#include "symbolize/pyline.h"

/* 3.8, 3.9: (bytecode delta u8, line delta s8) pairs. */
static int64_t lnotab(const uint8_t *t, uint32_t len, int64_t line, uint32_t off)
{
	uint32_t addr = 0;

	for (uint32_t i = 0; i + 1 < len; i += 2) {
		addr += t[i];
		if (addr > off)
			break;
		line += (int8_t)t[i + 1];
	}
	return line;
}

/* 3.10: (bytecode delta u8, line delta s8) ranges; a line delta of -128: no line. */
static int64_t linetable310(const uint8_t *t, uint32_t len, int64_t line, uint32_t off)
{
	uint32_t end = 0;

	for (uint32_t i = 0; i + 1 < len; i += 2) {
		uint32_t start = end;
		int8_t ld = (int8_t)t[i + 1];

		end += t[i];
		if (ld != -128)
			line += ld;
		if (off >= start && off < end)
			return ld == -128 ? -1 : line;
	}
	return -1;
}

struct cursor {
	const uint8_t *t;
	uint32_t len, i;
	int bad;
};

static uint32_t varint(struct cursor *c)
{
	uint32_t v = 0, shift = 0, b;

	do {
		if (c->i >= c->len || shift > 28) {
			c->bad = 1;
			return 0;
		}
		b = c->t[c->i++];
		v |= (b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return v;
}

static int32_t svarint(struct cursor *c)
{
	uint32_t v = varint(c);

	return v & 1 ? -(int32_t)(v >> 1) : (int32_t)(v >> 1);
}

/* 3.11+: entries of (first byte: 1, code:4, length-1:3) and a code-specific tail; the
 * offset is in 2-byte code units. */
static int64_t locations(const uint8_t *t, uint32_t len, int64_t line, uint32_t off)
{
	struct cursor c = { t, len, 0, 0 };
	uint32_t unit = off / 2, addr = 0;

	while (c.i < c.len && !c.bad) {
		uint8_t b = t[c.i++];
		uint32_t code = b >> 3 & 15, n = (b & 7) + 1;
		int64_t here = line;
		int none = 0;

		if (!(b & 128))
			return -1;
		if (code == 15) {
			none = 1;
		} else if (code == 14) {
			line += svarint(&c);
			here = line;
			varint(&c);
			varint(&c);
			varint(&c);
		} else if (code == 13) {
			line += svarint(&c);
			here = line;
		} else if (code >= 10) {
			line += (int64_t)code - 10;
			here = line;
			c.i += 2;
		} else {
			c.i += 1;
		}
		if (c.i > c.len)
			return -1;
		if (unit >= addr && unit < addr + n)
			return none || c.bad ? -1 : here;
		addr += n;
	}
	return -1;
}

int32_t pyline__find(uint16_t version, const uint8_t *table, uint32_t len, int32_t first,
		     uint32_t off)
{
	int64_t line;

	if (!table || !len)
		return -1;
	if (version < 0x030a)
		line = lnotab(table, len, first, off);
	else if (version == 0x030a)
		line = linetable310(table, len, first, off);
	else
		line = locations(table, len, first, off);
	/* A line before the file's first, or past any file's last: a malformed table. */
	return line < 0 || line > INT32_MAX ? -1 : (int32_t)line;
}
