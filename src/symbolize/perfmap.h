/* JIT symbol maps in the perf-PID.map convention (V8/Node --perf-basic-prof, the JVM's
 * perf-map-agent, LuaJIT, .NET, CPython -X perf): text lines "START SIZE name", START
 * and SIZE in hex with or without 0x.  The input is whatever the traced program wrote,
 * so anything else is skipped and counted, never trusted. */
#ifndef PROBEX_SYMBOLIZE_PERFMAP_H
#define PROBEX_SYMBOLIZE_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

#define PERFMAP_NAME_MAX 1024	/* longer names are cut */

struct perfmap;

struct perfmap *perfmap__new(void);
void perfmap__free(struct perfmap *pm);
/* Parse more of the file (whole lines; a last line without '\n' is parsed too).  Later
 * entries win over earlier ones covering the same address (JIT code is recycled). */
int perfmap__add(struct perfmap *pm, const char *buf, size_t len);
/* The name covering addr, or NULL; valid until perfmap__free. */
const char *perfmap__lookup(struct perfmap *pm, uint64_t addr);
/* Lines taken and lines skipped as malformed. */
void perfmap__counts(const struct perfmap *pm, uint64_t *entries, uint64_t *bad);

#endif
