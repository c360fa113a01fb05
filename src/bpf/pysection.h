/* Where a record's Python frames are (user space: the recorder sees records as the kernel
 * sent them, finalize as they were spooled, packed). */
#ifndef PROBEX_BPF_PYSECTION_H
#define PROBEX_BPF_PYSECTION_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/records.h"

/* The offset of the rec_pystack section of a record of len bytes, checked to lie whole
 * in it, or 0 when it has none. */
static inline uint32_t rec_pystack_at(const void *rec, uint32_t len, bool packed)
{
	const struct rec_hdr *h = rec;
	const struct rec_pystack *s;
	uint32_t fixed = rec_fixed_size(h->kind);
	uint64_t off;

	if (len < sizeof(*h) || !(h->flags & REC_F_PYSTACK) || !fixed)
		return 0;
	if (h->flags & REC_F_USTACK_COPY) {
		const struct rec_ustack *u;

		off = packed ? rec_spool_ustack_off(fixed, h->kstack_n) : rec_ustack_off(fixed);
		if (off + sizeof(*u) > len)
			return 0;
		u = (const struct rec_ustack *)((const char *)rec + off);
		off += sizeof(*u) + (uint64_t)u->nwalk * 8 + u->len;	/* walked frames, then bytes */
	} else {
		off = fixed + ((uint64_t)h->ustack_n + h->kstack_n) * 8;
	}
	if (off + sizeof(*s) > len)
		return 0;
	s = (const struct rec_pystack *)((const char *)rec + off);
	if (s->magic != PY_SECTION_MAGIC || !s->n || s->n > PY_MAX_FRAMES ||
	    off + sizeof(*s) + (uint64_t)s->n * sizeof(struct py_frame) > len)
		return 0;
	return (uint32_t)off;
}

#endif
