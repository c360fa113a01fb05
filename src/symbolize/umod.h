/* One user-space ELF file opened through libdwfl: file offsets to symbol names. */
#ifndef PROBEX_SYMBOLIZE_UMOD_H
#define PROBEX_SYMBOLIZE_UMOD_H

#include <stdbool.h>
#include <stddef.h>

#define UMOD_MAX_DEPTH 64	/* inline chain entries kept per address */
/* How far into an object's entry point (_start) a process's first frame lies: its return
 * address, after the call to __libc_start_main (0x25 bytes in on x86-64 glibc). */
#define UMOD_ENTRY_SLACK 64

struct umod;

struct umod_sym {
	const char *names[UMOD_MAX_DEPTH];	/* raw (possibly mangled), outermost first */
	int n;
	const char *file;	/* innermost frame's source file, or NULL */
	int line;
};

/* Takes ownership of fd (closed on failure too). path names the file in messages and is
 * where libdwfl starts looking for .gnu_debuglink files. -ENOEXEC when not ELF. */
int umod__open(int fd, const char *path, struct umod **out);
void umod__close(struct umod *m);

/* The file's GNU build-id: its length (bytes at *id, owned by m) or 0 when it has none. */
int umod__build_id(struct umod *m, const unsigned char **id);

/* Whether the file itself carries DWARF (not a stripped copy relying on a debug file). */
bool umod__own_dwarf(const struct umod *m);
/* Whether the sorted symbol table was built (at the first address DWARF did not name). */
bool umod__indexed(const struct umod *m);

/* Names for the code at file_offset, pointing into m's data (valid until umod__close).
 * -ENOENT when no loadable segment covers the offset or no symbol names it. */
/* lines: also look up the source file and line (decodes the CU's line table: in
 * distribution debug files a compressed section, the costliest part of a lookup). */
int umod__symbolize(struct umod *m, unsigned long long file_offset, bool lines,
		    struct umod_sym *out);

#endif
