/* Address spaces of the traced processes over time, rebuilt from what the kernel told us
 * while recording (perf MMAP2/COMM-exec side-band records and fork records), so stacks of
 * processes that exited long before symbolization still resolve.
 *
 * Feed events in any order, call addrspace__build() once, then query. */
#ifndef PROBEX_SYMBOLIZE_ADDRSPACE_H
#define PROBEX_SYMBOLIZE_ADDRSPACE_H

#include <stdint.h>

struct addrspace;

struct mapping {
	uint64_t start, end, pgoff;
	uint64_t ts;			/* when it was mapped */
	const char *path;		/* as the kernel named it; "(deleted)" suffix kept */
	const unsigned char *build_id;	/* NULL when the kernel gave none */
	uint8_t build_id_len;
};

struct addrspace *addrspace__new(void);
void addrspace__free(struct addrspace *as);

int addrspace__add_fork(struct addrspace *as, uint64_t ts, uint32_t parent_tgid, uint32_t child_tgid);
int addrspace__add_exec(struct addrspace *as, uint64_t ts, uint32_t tgid);
int addrspace__add_mmap(struct addrspace *as, uint64_t ts, uint32_t tgid, uint64_t start,
			uint64_t len, uint64_t pgoff, const char *path, const unsigned char *build_id,
			uint8_t build_id_len);
int addrspace__build(struct addrspace *as);

/* Address-space id of tgid at time ts; 0 when unknown (e.g. before the command's exec). */
uint32_t addrspace__space_at(const struct addrspace *as, uint32_t tgid, uint64_t ts);
/* The newest mapping of space covering addr that existed at ts, or NULL. */
const struct mapping *addrspace__find(const struct addrspace *as, uint32_t space, uint64_t addr,
				      uint64_t ts);
uint32_t addrspace__mapping_count(const struct addrspace *as);

/* Raw material for re-symbolizing later: spaces are 1..count-1. */
uint32_t addrspace__space_count(const struct addrspace *as);
const struct mapping *addrspace__space_mappings(const struct addrspace *as, uint32_t space,
						 uint32_t *n);
/* Rebuild a space from saved mappings (probex resymbolize): appends to space, creating
 * spaces up to it as needed; an alternative to the add and build calls. */
int addrspace__restore(struct addrspace *as, uint32_t space, const struct mapping *m);

#endif
