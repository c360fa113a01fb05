/* Functions and inline chains at an address, from one module's DWARF (libdw). */
#ifndef PROBEX_SYMBOLIZE_DWFUNC_H
#define PROBEX_SYMBOLIZE_DWFUNC_H

#include <elfutils/libdwfl.h>

struct dwfunc;

/* Per-module state: lazily built, per compile unit, sorted function address ranges. */
struct dwfunc *dwfunc__new(Dwfl_Module *mod);
void dwfunc__free(struct dwfunc *d);

/* Fills chain[] with the DIEs of the function scopes at addr (a Dwfl address): the physical
 * (out-of-line) subprogram first, then each inlined_subroutine down to the innermost.
 * Returns the count (0 when the DWARF has no function there, including no DWARF at all)
 * or a negative errno. Deeper chains than max keep the outermost and the innermost. */
int dwfunc__chain(struct dwfunc *d, Dwarf_Addr addr, Dwarf_Die *chain, int max);

/* The compile unit holding addr (a Dwfl address), and the bias to subtract for DWARF
 * addresses; NULL when no CU covers it. Valid while d lives. */
Dwarf_Die *dwfunc__cu_die(struct dwfunc *d, Dwarf_Addr addr, Dwarf_Addr *bias);

#endif
