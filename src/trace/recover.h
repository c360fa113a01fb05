/* `probex recover SPOOL [-o OUTPUT]`: turn a spool left by an interrupted recording into
 * a trace of everything it captured. */
#ifndef PROBEX_TRACE_RECOVER_H
#define PROBEX_TRACE_RECOVER_H

int recover__main(int argc, char **argv);

#endif
