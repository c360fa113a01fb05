/* Output files: checked before any work starts, written under a temporary name that is
 * created exclusively (O_EXCL|O_NOFOLLOW: a planted file or symlink is refused, never
 * followed), and moved into place only when complete.  An earlier file at the output path
 * is kept as PATH.old (perf's habit) unless --force.  Callers run these with the user's
 * identity (see common/priv.h), so nothing here can reach what the user could not. */
#ifndef PROBEX_COMMON_OUTFILE_H
#define PROBEX_COMMON_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>

#define OUTFILE_TMP_SUFFIX ".probex-tmp"
#define OUTFILE_OLD_SUFFIX ".old"

/* 0 when path can be created by the current (fs) identity: its directory exists and is
 * writable, path is not a directory and its temporary name is free.  Otherwise prints an error naming the path and
 * returns a negative errno. */
int outfile__check(const char *path);

/* path + OUTFILE_TMP_SUFFIX into buf; -ENAMETOOLONG when it does not fit. */
int outfile__tmp_name(char *buf, size_t size, const char *path);

/* Rename tmp (created by us) to path.  An existing path is first renamed to path.old,
 * with a message, unless force.  Negative errno, with a message, on failure. */
int outfile__commit(const char *tmp, const char *path, bool force);

#endif
