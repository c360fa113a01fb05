/* Kernel records → rows of the reference's row model (a paired syscall record becomes its
 * *_enter and *_exit rows), appended to the DuckDB table `raw`. */
#ifndef PROBEX_TRACE_ROWS_H
#define PROBEX_TRACE_ROWS_H

#include <duckdb.h>
#include <stdint.h>

struct addrspace;
struct stackset;
struct rows;

int rows__open(struct rows **r, duckdb_connection con, const struct addrspace *as,
	       struct stackset *ustacks, struct stackset *kstacks);
/* One spool record; malformed records are counted and skipped, never fatal. */
int rows__add_record(struct rows *r, const void *data, uint32_t len);
uint64_t rows__count(const struct rows *r);
uint64_t rows__bad_records(const struct rows *r);
/* Flush rows, then write the `comms` table (comm_id → name). */
int rows__close(struct rows *r, duckdb_connection con);

#endif
