/* CRC-32C (Castagnoli), as iSCSI, ext4 and Btrfs use it: with the SSE4.2 instruction
 * where the CPU has it (~20x zlib's CRC-32 here: checking a 470 KiB symbol-cache entry
 * took 0.86 ms with zlib), else from a table. */
#ifndef PROBEX_COMMON_CRC32C_H
#define PROBEX_COMMON_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* The CRC of buf[0..len) continued from crc (0 to start): crc32c(0, "123456789", 9) is
 * 0xe3069283. */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len);
/* The same from the table, whatever the CPU (for tests). */
uint32_t crc32c__table(uint32_t crc, const void *buf, size_t len);

#endif
