/* The kernel's BTF, mapped instead of read, and parsed ahead of its first use. */
#ifndef PROBEX_RECORD_KBTF_H
#define PROBEX_RECORD_KBTF_H

/* Parse the kernel's BTF on a thread of its own; the next load of it takes the result. */
void kbtf__prefetch(void);
/* Wait for a prefetch nobody took and free its result. */
void kbtf__prefetch_end(void);

#endif
