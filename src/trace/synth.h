/* `probex synth`: write a realistic, seeded, synthetic trace in the reference format. */
#ifndef PROBEX_TRACE_SYNTH_H
#define PROBEX_TRACE_SYNTH_H

int synth__main(int argc, char **argv);

#endif
