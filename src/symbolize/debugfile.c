#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/debugfile.h"

#define DEBUG_ROOT "/usr/lib/debug"

bool debugfile__by_build_id(const unsigned char *id, int len)
{
	char path[64 + 2 * 64];
	size_t n;

	if (len < 2 || len > 64)
		return false;
	n = (size_t)snprintf(path, sizeof(path), DEBUG_ROOT "/.build-id/%02x/", id[0]);
	for (int i = 1; i < len; i++)
		n += (size_t)snprintf(path + n, sizeof(path) - n, "%02x", id[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	return access(path, R_OK) == 0;
}

/* The places libdwfl's default path (":.debug:/usr/lib/debug") tries for a debug link;
 * with no link it tries the file's own name + ".debug". */
static bool debugfile__by_link(const char *file_name, const char *link)
{
	char dir[PATH_MAX], base[PATH_MAX], path[PATH_MAX * 2 + 32];
	const char *d;

	if (!file_name || strlen(file_name) >= sizeof(dir))
		return false;
	strcpy(dir, file_name);
	strcpy(base, file_name);
	d = dirname(dir);
	if (!link) {
		snprintf(path, sizeof(path), "%s.debug", basename(base));
		strcpy(base, path);
		link = base;
	}
	if (strlen(link) > NAME_MAX)
		return false;
	snprintf(path, sizeof(path), "%s/%s", d, link);
	if (access(path, R_OK) == 0)
		return true;
	snprintf(path, sizeof(path), "%s/.debug/%s", d, link);
	if (access(path, R_OK) == 0)
		return true;
	snprintf(path, sizeof(path), DEBUG_ROOT "%s/%s", d, link);
	return access(path, R_OK) == 0;
}

int debugfile__find(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		    char **debuginfo_file_name)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &id, &vaddr);

	if (!(len > 0 && debugfile__by_build_id(id, len)) &&
	    !debugfile__by_link(file_name, debuglink_file))
		return -1;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc, debuginfo_file_name);
}
