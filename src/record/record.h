/* The recording session: spawn, attach, consume, finalize, then hand over to the viewer. */
#ifndef PROBEX_RECORD_RECORD_H
#define PROBEX_RECORD_RECORD_H

#include "cli/options.h"
#include "common/priv.h"

/* Returns the process exit status (the traced command's, 128+N for signal N, 127 when
 * it cannot be run, 1 for probex's own failures). */
int record__main(const struct probex_opts *opts, const struct priv_target *priv);

#endif
