/* `probex resymbolize FILE [-o OUT]`: redo the user-space labels of a trace's stacks
 * from the raw addresses and mappings stored in it (kernel labels are kept: kernel
 * addresses only mean something on the boot that recorded them). */
#ifndef PROBEX_TRACE_RESYMBOLIZE_H
#define PROBEX_TRACE_RESYMBOLIZE_H

int resymbolize__main(int argc, char **argv);

#endif
