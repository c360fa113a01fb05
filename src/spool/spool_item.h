/* The header every spool item starts with (spool.h describes the layout): shared by the
 * writer (spool_writer.c) and the readers (spool.c), not part of the interface. */
#ifndef PROBEX_SPOOL_SPOOL_ITEM_H
#define PROBEX_SPOOL_SPOOL_ITEM_H

#include <stdint.h>

struct item_hdr {
	uint32_t len;
	uint16_t tag;
	uint16_t reserved;
};

#endif
