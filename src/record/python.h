/* CPython processes in a recording: found when they exec or are attached (by the
 * interpreter's own symbols, not the command's name), described to the kernel (the map
 * pyprocs), and the code objects their stacks name read while they live (into the spool
 * as SPOOL_PYCODE items).  Owned by the consumer thread once it runs. */
#ifndef PROBEX_RECORD_PYTHON_H
#define PROBEX_RECORD_PYTHON_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/pyrecords.h"

struct pyrec;
struct spool_writer;
struct strbuf;

int pyrec__new(struct pyrec **out, int pyprocs_fd, struct spool_writer *w);
void pyrec__free(struct pyrec *r);
/* A ring-buffer record as it arrives (exec, fork, exit, or one with Python frames). */
int pyrec__on_record(struct pyrec *r, const void *data, uint32_t size);
/* Look at a process now (attach): 1 when it runs a supported CPython. */
int pyrec__check(struct pyrec *r, uint32_t tgid, uint64_t epoch);
/* Processes whose interpreter library was not mapped yet at exec: look again. */
void pyrec__poll(struct pyrec *r);
/* Counters for probex.drops: `"name":N,` each. */
void pyrec__drops(const struct pyrec *r, struct strbuf *out);

/* The layout for a CPython version (0x030b), from the generated tables; NULL when that
 * version's layout comes from the process (3.13+) or is unsupported. */
const struct py_layout *pylayout__table(uint16_t version);
/* A layout from 3.13's _Py_DebugOffsets (the bytes at _PyRuntime, len of them):
 * 0, or -ENOTSUP (another version's struct, a free-threaded build, or not the cookie). */
int pylayout__from_debug(const void *buf, uint32_t len, struct py_layout *l);
/* The bytes of a frame the kernel reads (fr_span), from the frame fields' offsets. */
void pylayout__set_span(struct py_layout *l);

#endif
