/* The name to show for a function DIE (subprogram or inlined subroutine). */
#ifndef PROBEX_SYMBOLIZE_DWNAME_H
#define PROBEX_SYMBOLIZE_DWNAME_H

#include <elfutils/libdw.h>

struct dwname;	/* cache of names built for DIEs without a usable linkage name */

struct dwname *dwname__new(void);
void dwname__free(struct dwname *n);

/* Follows abstract origins and specifications. Returns, in order of preference: the mangled
 * linkage name (C++, Rust; the caller demangles it); for C++ without one (templates
 * instantiated with lambdas, lambdas' operator()), DW_AT_name qualified by its enclosing
 * namespaces, classes and functions ("std::__sort<...>", "main::<lambda()>::operator()");
 * the plain DW_AT_name; any linkage name; NULL. Valid while n and the module live. */
const char *dwname__get(struct dwname *n, Dwarf_Die *die);

#endif
