/* Separate debug files (Debian's -dbgsym packages, .gnu_debuglink), looked for on this
 * machine only. */
#ifndef PROBEX_SYMBOLIZE_DEBUGFILE_H
#define PROBEX_SYMBOLIZE_DEBUGFILE_H

#include <stdbool.h>
#include <elfutils/libdwfl.h>

/* Whether /usr/lib/debug/.build-id/xx/yyyy.debug exists for this build-id. */
bool debugfile__by_build_id(const unsigned char *id, int len);

/* A libdwfl find_debuginfo callback: libdwfl's own search (the build-id tree, then the
 * debug link next to the file, in .debug/ and under /usr/lib/debug), entered only when
 * one of those files exists.  libdwfl's search ends, when it finds nothing, by loading
 * libdebuginfod and its network stack (30 libraries, tens of ms per finalize) and, with
 * DEBUGINFOD_URLS set, by downloading: a recording must not wait on a network. */
int debugfile__find(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		    char **debuginfo_file_name);

#endif
