/* Reading a CPython code object from a live process (pycode.c). */
#ifndef PROBEX_RECORD_PYCODE_H
#define PROBEX_RECORD_PYCODE_H

#include <stdint.h>

#include "bpf/pyrecords.h"
#include "spool/spool.h"

#define PYCODE_HDR	208	/* bytes of a code object read: every field probex reads lies below */
/* The largest SPOOL_PYCODE payload pycode__read writes. */
#define PYCODE_ITEM_MAX	(sizeof(struct spool_pycode) + 2 * 1024 * 4 + (48u << 10))

/* The code object at code in process pid, which the stack saw with fingerprint fp, as a
 * SPOOL_PYCODE payload in buf (at least PYCODE_ITEM_MAX bytes): its length.  PYCODE_BAD
 * when it cannot be named (unreadable, or another object there now). */
uint32_t pycode__read(uint32_t pid, const struct py_proc *p, uint16_t version, uint64_t code,
		      uint32_t fp, uint64_t epoch, uint8_t *buf);

#endif
