#include <pthread.h>
#include <string.h>

#include "common/crc32c.h"

#define CRC32C_POLY 0x82f63b78u	/* reflected */

static uint32_t table[256];
static uint32_t (*impl)(uint32_t, const unsigned char *, size_t);
static pthread_once_t once = PTHREAD_ONCE_INIT;

static uint32_t crc32c_sw(uint32_t c, const unsigned char *p, size_t len)
{
	while (len--)
		c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t c, const unsigned char *p, size_t len)
{
	uint64_t c64;

	for (; len && ((uintptr_t)p & 7); len--)
		c = __builtin_ia32_crc32qi(c, *p++);
	c64 = c;
	for (; len >= 8; len -= 8, p += 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c64 = __builtin_ia32_crc32di(c64, v);
	}
	c = (uint32_t)c64;
	while (len--)
		c = __builtin_ia32_crc32qi(c, *p++);
	return c;
}

static void init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ CRC32C_POLY : c >> 1;
		table[i] = c;
	}
	__builtin_cpu_init();
	impl = __builtin_cpu_supports("sse4.2") ? crc32c_hw : crc32c_sw;
}

uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&once, init);
	return ~impl(~crc, buf, len);
}

uint32_t crc32c__table(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&once, init);
	return ~crc32c_sw(~crc, buf, len);
}
