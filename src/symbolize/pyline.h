/* CPython line tables: which source line a bytecode offset is on, for 3.8-3.9
 * (co_lnotab), 3.10 (co_linetable) and 3.11+ (the location table). */
#ifndef PROBEX_SYMBOLIZE_PYLINE_H
#define PROBEX_SYMBOLIZE_PYLINE_H

#include <stdint.h>

/* The line of the instruction at byte offset `off` of a code object of CPython `version`
 * (0x030b) whose first line is `first`, from its table (len bytes): the line, or -1 when
 * the table gives none for it (or the table is malformed). */
int32_t pyline__find(uint16_t version, const uint8_t *table, uint32_t len, int32_t first,
		     uint32_t off);

#endif
