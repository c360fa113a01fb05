/* A Parquet footer (FileMetaData, Thrift compact protocol) walked before a reader trusts
 * it: every length, list and map count must fit in the bytes that remain.  DuckDB's
 * reader allocates what a footer declares (a 16 KB file asking for 6 GB was found by
 * fuzzing), so probex checks first. */
#ifndef PROBEX_PARQUET_FOOTER_CHECK_H
#define PROBEX_PARQUET_FOOTER_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* 0 when p[0..n) starts with one well-formed compact-protocol struct, -EBADMSG
 * otherwise. */
int parquet__check_footer(const uint8_t *p, size_t n);

#endif
