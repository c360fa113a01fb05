#include <errno.h>
#include <stdbool.h>

#include "parquet/footer_check.h"

#define MAX_DEPTH 64	/* FileMetaData nests a handful of levels */

enum { T_TRUE = 1, T_FALSE, T_BYTE, T_I16, T_I32, T_I64, T_DOUBLE, T_BINARY, T_LIST, T_SET,
       T_MAP, T_STRUCT };

struct cursor {
	const uint8_t *p, *end;
};

static bool varint(struct cursor *c, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64 && c->p < c->end; shift += 7) {
		uint8_t b = *c->p++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

static bool skip(struct cursor *c, uint64_t n)
{
	if (n > (uint64_t)(c->end - c->p))
		return false;
	c->p += n;
	return true;
}

static bool value(struct cursor *c, int type, int depth, bool in_list);

/* count elements of one type: each takes at least a byte, so a count past the bytes
 * left is refused before anything is walked. */
static bool elements(struct cursor *c, uint64_t count, int type, int depth)
{
	if (count > (uint64_t)(c->end - c->p))
		return false;
	for (uint64_t i = 0; i < count; i++)
		if (!value(c, type, depth, true))
			return false;
	return true;
}

static bool fields(struct cursor *c, int depth)
{
	uint64_t id;

	if (depth > MAX_DEPTH)
		return false;
	while (c->p < c->end) {
		uint8_t h = *c->p++;

		if (!h)
			return true;	/* stop */
		if (!(h >> 4) && !varint(c, &id))	/* long form: the field id follows */
			return false;
		if (!value(c, h & 0x0f, depth, false))
			return false;
	}
	return false;
}

static bool value(struct cursor *c, int type, int depth, bool in_list)
{
	uint64_t n;
	uint8_t h;

	switch (type) {
	case T_TRUE:
	case T_FALSE:
		/* In a struct the value is the type; in a list it is a byte. */
		return !in_list || skip(c, 1);
	case T_BYTE:
		return skip(c, 1);
	case T_I16:
	case T_I32:
	case T_I64:
		return varint(c, &n);
	case T_DOUBLE:
		return skip(c, 8);
	case T_BINARY:
		return varint(c, &n) && skip(c, n);
	case T_LIST:
	case T_SET:
		if (!skip(c, 1))
			return false;
		h = c->p[-1];
		n = h >> 4;
		if (n == 15 && !varint(c, &n))
			return false;
		return elements(c, n, h & 0x0f, depth + 1);
	case T_MAP:
		if (!varint(c, &n))
			return false;
		if (!n)
			return true;
		if (n > (uint64_t)(c->end - c->p) / 2 || !skip(c, 1))
			return false;
		h = c->p[-1];
		for (uint64_t i = 0; i < n; i++)
			if (!value(c, h >> 4, depth + 1, true) || !value(c, h & 0x0f, depth + 1, true))
				return false;
		return true;
	case T_STRUCT:
		return fields(c, depth + 1);
	default:
		return false;
	}
}

int parquet__check_footer(const uint8_t *p, size_t n)
{
	struct cursor c = { p, p + n };

	return fields(&c, 0) ? 0 : -EBADMSG;
}
