#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "symbolize/demangle.h"

char *demangle__name(const char *sym)
{
	/* Only _Z (Itanium C++ and Rust legacy) and _R (Rust v0) prefixes are mangled;
	 * checking first keeps plain C names ("main", "read") from costing a demangler call. */
	if (!sym || sym[0] != '_' || (sym[1] != 'Z' && sym[1] != 'R'))
		return NULL;

	/* The default style is auto: libiberty tries Rust before GNU v3, since legacy Rust
	 * symbols are valid C++ manglings too; without DMGL_VERBOSE it drops the ::h<hash>
	 * suffix and v0 crate disambiguators, which is what perf and samply show.
	 * DMGL_RET_DROP: template functions encode their return type; labels leave it out. */
	return cplus_demangle(sym, DMGL_PARAMS | DMGL_ANSI | DMGL_RET_DROP);
}
