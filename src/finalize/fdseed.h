#ifndef PROBEX_FINALIZE_FDSEED_H
#define PROBEX_FINALIZE_FDSEED_H

#include "common/intern.h"
#include "finalize/fdpaths.h"

/* Seed f from the META_FDS line of the spool's metadata text, paths interned into files.
 * 1 (seeded), 0 (no line: the recording did not follow descriptors), -EINVAL (a damaged
 * line) or -ENOMEM. */
int fdseed__read(const char *meta, struct fdpaths *f, struct intern *files);

#endif
