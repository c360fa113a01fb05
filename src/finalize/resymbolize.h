/* Redo the user-space labels of a trace's stacks from the raw addresses and mappings
 * stored in it (kernel labels are kept: kernel addresses only mean something on the boot
 * that recorded them). */
#ifndef PROBEX_FINALIZE_RESYMBOLIZE_H
#define PROBEX_FINALIZE_RESYMBOLIZE_H

#include <stdbool.h>

/* Write IN with new labels to OUT (may equal IN: written aside, then renamed).  An
 * existing OUT other than IN is kept as OUT.old unless force.  Errors are logged;
 * returns 0 or a negative errno. */
int resymbolize__run(const char *in, const char *out, bool force);

#endif
