/* Growable buffers for multi-megabyte tables, backed by transparent huge pages where the
 * kernel allows them: first-touch page faults dominate building such tables (measured in
 * this project's VM: 8 MiB of 4 KiB pages cost ~65 ms to touch, with huge pages ~1-8 ms). */
#ifndef PROBEX_SYMBOLIZE_BIGBUF_H
#define PROBEX_SYMBOLIZE_BIGBUF_H

#include <stddef.h>

struct bigbuf {
	void *p;
	size_t cap;	/* bytes mapped */
};

/* Ensures room for size bytes; contents are kept, p may move. 0 or -ENOMEM. */
int bigbuf__reserve(struct bigbuf *b, size_t size);
void bigbuf__free(struct bigbuf *b);

#endif
