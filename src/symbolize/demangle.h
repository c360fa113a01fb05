/* Demangling of C++ and Rust symbol names into the labels flame graphs show. */
#ifndef PROBEX_SYMBOLIZE_DEMANGLE_H
#define PROBEX_SYMBOLIZE_DEMANGLE_H

/* Returns a malloc'd demangled name, or NULL when sym is not mangled (or not demanglable).
 * C++ (_Z...): parameters, no return type, e.g. "ns::f(int)".
 * Rust legacy (_ZN...17h<16 hex>E) and v0 (_R...): the path without the hash / crate
 * disambiguators, e.g. "core::ptr::drop_in_place::<alloc::string::String>". */
char *demangle__name(const char *sym);

#endif
