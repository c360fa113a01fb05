/* Code objects of a live CPython process, read with process_vm_readv as the records
 * naming them arrive: name, qualified name, file, first line and line table, spooled as
 * a SPOOL_PYCODE item.  An object that cannot be read, or is no code object any more
 * (freed before we looked), is spooled as PYCODE_BAD: its frames are marked, never named
 * from whatever the memory holds now. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/pycode.h"
#include "record/pyfind.h"

#define PYSTR_MAX 1024		/* characters of a name or file kept */
#define PYTABLE_MAX (48u << 10)	/* line table bytes kept: more is a function of ~10K lines */

/* Append c as UTF-8. */
static size_t utf8_put(char *out, uint32_t c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	if (c > 0x10ffff)
		c = 0xfffd;
	out[0] = (char)(0xf0 | c >> 18);
	out[1] = (char)(0x80 | (c >> 12 & 0x3f));
	out[2] = (char)(0x80 | (c >> 6 & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* A str object at addr into out (UTF-8, at most PYSTR_MAX characters): its length, or
 * -EFAULT (unreadable, or not a compact str). */
static int read_str(uint32_t pid, const struct py_layout *l, uint64_t addr, char *out, size_t cap)
{
	uint8_t hdr[128], data[PYSTR_MAX * 4];
	uint32_t state, kind;
	int64_t len;
	size_t n = 0, off;

	if (!addr || l->uni_compact_size > sizeof(hdr) ||
	    pyfind__read_mem(pid, addr, hdr, l->uni_compact_size))
		return -EFAULT;
	memcpy(&len, hdr + 16, 8);
	memcpy(&state, hdr + l->uni_state, 4);
	kind = state >> 2 & 7;
	if (!(state >> 5 & 1) || len < 0 || (kind != 1 && kind != 2 && kind != 4))
		return -EFAULT;
	if (len > PYSTR_MAX)
		len = PYSTR_MAX;
	off = state >> 6 & 1 ? l->uni_ascii_size : l->uni_compact_size;
	if (len && pyfind__read_mem(pid, addr + off, data, (size_t)len * kind))
		return -EFAULT;
	for (int64_t i = 0; i < len && n + 4 < cap; i++) {
		uint32_t c = kind == 1 ? data[i] : kind == 2 ? ((uint16_t *)data)[i] : ((uint32_t *)data)[i];

		n += utf8_put(out + n, c);
	}
	return (int)n;
}

/* A bytes object's contents (at most PYTABLE_MAX): its length, or -EFAULT. */
static int read_bytes(uint32_t pid, const struct py_layout *l, uint64_t addr, uint8_t *out)
{
	int64_t len;

	if (!addr || pyfind__read_mem(pid, addr + 16, &len, 8) || len < 0)
		return -EFAULT;
	if (len > PYTABLE_MAX)
		len = PYTABLE_MAX;
	if (len && pyfind__read_mem(pid, addr + l->bytes_sval, out, (size_t)len))
		return -EFAULT;
	return (int)len;
}

static uint64_t ptr_at(const uint8_t *obj, uint16_t off)
{
	uint64_t v = 0;

	if (off != PY_NONE && off + 8u <= PYCODE_HDR)
		memcpy(&v, obj + off, 8);
	return v;
}

/* The code object at code, into buf as a SPOOL_PYCODE payload: its length. */
static uint32_t read_code(uint32_t pid, const struct py_proc *p, uint64_t code, uint8_t *buf)
{
	const struct py_layout *l = &p->l;
	struct spool_pycode *c = (struct spool_pycode *)buf;
	char *s = (char *)(c + 1);
	uint8_t obj[PYCODE_HDR];
	int32_t first = 0;
	uint64_t type;
	int n;

	c->flags = PYCODE_BAD;
	if (pyfind__read_mem(pid, code, obj, sizeof(obj)))
		return sizeof(*c);
	memcpy(&type, obj + 8, 8);
	if (p->code_type && type != p->code_type)
		return sizeof(*c);
	if (l->co_firstlineno + 4u <= sizeof(obj))
		memcpy(&first, obj + l->co_firstlineno, 4);
	c->firstlineno = first;
	/* Another code object at this address than the one the stack named: no name. */
	if (c->fp != py_code_fp(ptr_at(obj, l->co_filename), ptr_at(obj, l->co_name), (uint32_t)first))
		return sizeof(*c);
	n = read_str(pid, l, ptr_at(obj, l->co_qualname != PY_NONE ? l->co_qualname : l->co_name), s,
		     PYSTR_MAX * 4);
	if (n <= 0)
		return sizeof(*c);
	c->name_len = (uint16_t)n;
	n = read_str(pid, l, ptr_at(obj, l->co_filename), s + c->name_len, PYSTR_MAX * 4);
	if (n < 0)
		return sizeof(*c);
	c->file_len = (uint16_t)n;
	n = read_bytes(pid, l, ptr_at(obj, l->co_linetable), (uint8_t *)s + c->name_len + c->file_len);
	c->table_len = n > 0 ? (uint32_t)n : 0;
	c->flags = n < 0 ? PYCODE_NO_LINES : 0;
	return (uint32_t)(sizeof(*c) + c->name_len + c->file_len + c->table_len);
}

uint32_t pycode__read(uint32_t pid, const struct py_proc *p, uint16_t version, uint64_t code,
		      uint32_t fp, uint64_t epoch, uint8_t *buf)
{
	struct spool_pycode *c = (struct spool_pycode *)buf;

	memset(c, 0, sizeof(*c));
	c->tgid = pid;
	c->version = version;
	c->code = code;
	c->epoch = epoch;
	c->fp = fp;
	c->adaptive = version >= 0x030b ? p->l.co_adaptive : 0;
	return read_code(pid, p, code, buf);
}
