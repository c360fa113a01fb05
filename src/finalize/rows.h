/* The trace's rows: an index over the kernel records (a paired syscall record gives its
 * *_enter and *_exit rows), sorted by time, then written column by column in the
 * reference's row model. */
#ifndef PROBEX_FINALIZE_ROWS_H
#define PROBEX_FINALIZE_ROWS_H

#include <stdint.h>

struct addrspace;
struct pq_writer;
struct stackset;
struct stacklists;
struct rows;

struct rows_stats {
	uint64_t rows, records, bad_records;
};

/* spool_bytes sizes the index once (a realloc would copy it and touch fresh pages). */
int rows__new(struct rows **r, const struct addrspace *as, struct stackset *ustacks,
	      struct stackset *kstacks, uint64_t spool_bytes);
void rows__free(struct rows *r);
/* Unwind records' copied user stacks with unw (not owned); without one they have none. */
struct unwinder;
void rows__set_unwinder(struct rows *r, struct unwinder *unw);
/* Index one record; data must stay valid until rows__free (the spool is mapped).
 * Malformed records are counted and skipped, never fatal. */
int rows__add_record(struct rows *r, const void *data, uint32_t len);
/* Stable sort by timestamp (ties keep record order). */
int rows__sort(struct rows *r);
/* Write every row, in order, as row groups of at most rg_rows. */
int rows__write(struct rows *r, struct pq_writer *w, struct stacklists *sl, uint32_t rg_rows);
void rows__stats(const struct rows *r, struct rows_stats *out);

#endif
