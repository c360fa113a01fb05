#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "common/base64.h"
#include "common/strbuf.h"
#include "symbolize/addrspace.h"
#include "finalize/jitmaps.h"
#include "finalize/pyframes.h"
#include "finalize/stackset.h"
#include "finalize/symdata.h"

#define MAX_FRAMES 256

static void add_frames(struct strbuf *b, const uint64_t *f, uint32_t n)
{
	strbuf__addf(b, " %u", n);
	for (uint32_t i = 0; i < n; i++)
		strbuf__add_hex(b, ' ', f[i]);
	strbuf__add(b, "\n", 1);
}

char *symdata__encode(const struct addrspace *as, const struct stackset *us,
		      const struct stackset *ks, const char *jit)
{
	struct strbuf b = { 0 };
	struct stack_entry e;
	char *out = NULL;
	void *z = NULL;
	size_t zlen;

	for (uint32_t sp = 1; sp < addrspace__space_count(as); sp++) {
		uint32_t n;
		const struct mapping *m = addrspace__space_mappings(as, sp, &n);

		for (uint32_t i = 0; i < n; i++) {
			strbuf__addf(&b, "m %u %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIu64 " ", sp,
				     m[i].start, m[i].end, m[i].pgoff, m[i].ts);
			if (!m[i].build_id_len)
				strbuf__add(&b, "-", 1);
			for (uint8_t k = 0; k < m[i].build_id_len; k++)
				strbuf__addf(&b, "%02x", m[i].build_id[k]);
			/* The path is last: it may contain spaces (not newlines: the kernel
			 * escapes those in mapping names). */
			strbuf__addf(&b, " %s\n", m[i].path);
		}
	}
	for (uint32_t id = 0; id < stackset__count(us); id++) {
		stackset__get(us, id, &e);
		strbuf__addf(&b, "u %u %u %" PRIu64, e.space, e.flags, e.ts);
		add_frames(&b, e.frames, e.n);
	}
	for (uint32_t id = 0; id < stackset__count(ks); id++) {
		stackset__get(ks, id, &e);
		strbuf__addf(&b, "k %u", e.flags);
		add_frames(&b, e.frames, e.n);
	}
	if (jit)
		strbuf__add(&b, jit, strlen(jit));
	if (b.err)
		goto cleanup;
	zlen = ZSTD_compressBound(b.len);
	z = malloc(zlen ? zlen : 1);
	if (!z)
		goto cleanup;
	/* Level 1: level 3 takes ~4x the time (mostly its larger tables' first touch) for a
	 * third less of a small blob. */
	zlen = ZSTD_compress(z, zlen, b.s ? b.s : "", b.len, 1);
	if (!ZSTD_isError(zlen))
		out = base64__encode(z, zlen);
cleanup:
	free(z);
	strbuf__free(&b);
	return out;
}

static int parse_frames(char **p, uint64_t *f, uint32_t *n)
{
	char *end;

	*n = (uint32_t)strtoul(*p, &end, 10);
	if (end == *p || *n > MAX_FRAMES)
		return -EBADMSG;
	*p = end;
	for (uint32_t i = 0; i < *n; i++) {
		f[i] = strtoull(*p, &end, 16);
		if (end == *p)
			return -EBADMSG;
		*p = end;
	}
	return 0;
}

static int parse_line(char *line, struct addrspace *as, struct stackset *us, struct stackset *ks,
		      struct jitmaps *jit, struct pyframes *py)
{
	uint64_t frames[MAX_FRAMES];
	unsigned char bid[64];
	struct mapping m = { 0 };
	uint64_t pyv;
	unsigned int space, flags;
	uint32_t n;
	int pos = 0, err;
	char hex[160], *p;

	switch (line[0]) {
	case 'm':
		if (sscanf(line, "m %u %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNu64 " %159s %n", &space,
			   &m.start, &m.end, &m.pgoff, &m.ts, hex, &pos) != 6 || !pos)
			return -EBADMSG;
		m.path = line + pos;
		if (strcmp(hex, "-")) {
			size_t l = strlen(hex) / 2;

			if (l > sizeof(bid))
				return -EBADMSG;
			for (size_t i = 0; i < l; i++)
				if (sscanf(hex + 2 * i, "%2hhx", &bid[i]) != 1)
					return -EBADMSG;
			m.build_id = bid;
			m.build_id_len = (uint8_t)l;
		}
		return addrspace__restore(as, space, &m);
	case 'u':
		if (sscanf(line, "u %u %u %" SCNu64 " %n", &space, &flags, &m.ts, &pos) != 3 || !pos)
			return -EBADMSG;
		p = line + pos;
		err = parse_frames(&p, frames, &n);
		return err ? err : (int)(stackset__intern(us, space, frames, n, flags, m.ts) < 0 ? -ENOMEM : 0);
	case 'k':
		if (sscanf(line, "k %u %n", &flags, &pos) != 1 || !pos)
			return -EBADMSG;
		p = line + pos;
		err = parse_frames(&p, frames, &n);
		return err ? err : (int)(stackset__intern(ks, 0, frames, n, flags, 0) < 0 ? -ENOMEM : 0);
	case 'j':
		if (sscanf(line, "j %u %n", &space, &pos) != 1 || !pos)
			return -EBADMSG;
		return jit ? jitmaps__add_text(jit, space, line + pos, strlen(line + pos)) : 0;
	case 'p':
		if (sscanf(line, "p %" SCNx64 " %n", &pyv, &pos) != 1 || !pos || !pyframes__is(pyv))
			return -EBADMSG;
		return py ? pyframes__restore(py, pyv, line + pos) : 0;
	default:
		return -EBADMSG;
	}
}

int symdata__decode(const char *value, struct addrspace *as, struct stackset *us,
		    struct stackset *ks, struct jitmaps *jit, struct pyframes *py)
{
	size_t zlen, len;
	void *z = base64__decode(value, &zlen);
	char *text = NULL, *line, *save = NULL;
	unsigned long long raw;
	int err = -EBADMSG;

	if (!z)
		return -EBADMSG;
	raw = ZSTD_getFrameContentSize(z, zlen);
	if (raw == ZSTD_CONTENTSIZE_ERROR || raw == ZSTD_CONTENTSIZE_UNKNOWN || raw > (1ull << 31))
		goto cleanup;
	text = malloc(raw + 1);
	if (!text) {
		err = -ENOMEM;
		goto cleanup;
	}
	len = ZSTD_decompress(text, raw, z, zlen);
	if (ZSTD_isError(len) || len != raw)
		goto cleanup;
	text[len] = 0;
	err = 0;
	for (line = strtok_r(text, "\n", &save); line && !err; line = strtok_r(NULL, "\n", &save))
		err = parse_line(line, as, us, ks, jit, py);
cleanup:
	free(text);
	free(z);
	return err;
}
