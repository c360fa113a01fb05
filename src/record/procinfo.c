#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/records.h"
#include "record/procinfo.h"
#include "trace/schema.h"
#include "trace/syscalls.h"

/* Whether fd of pid is close-on-exec (fdinfo's octal flags). */
static bool cloexec(int pid, const char *fd)
{
	char path[320], buf[256], *f;
	ssize_t n = -1;
	int d;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", pid, fd);
	d = open(path, O_RDONLY | O_CLOEXEC);
	if (d >= 0) {
		n = read(d, buf, sizeof(buf) - 1);
		close(d);
	}
	if (n <= 0)
		return false;
	buf[n] = 0;
	f = strstr(buf, "flags:");
	return f && (strtoul(f + 6, NULL, 8) & O_CLOEXEC);
}

/* A command about to exec keeps only its descriptors without close-on-exec. */
static void add_fds(struct strbuf *t, int pid, bool at_exec)
{
	char dir[64], link[PATH_MAX + 1];
	struct dirent *e;
	bool first = true;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	strbuf__addf(t, "\"%d\":{", pid);
	while (d && (e = readdir(d))) {
		char path[sizeof(dir) + 256];
		ssize_t n;

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || (at_exec && cloexec(pid, e->d_name)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		strbuf__addf(t, "%s\"%s\":", first ? "" : ",", e->d_name);
		strbuf__add_json_str(t, link);
		first = false;
	}
	strbuf__add(t, "}", 1);
	if (d)
		closedir(d);
}

static void add_cmdline(struct strbuf *t, int pid)
{
	char path[64], buf[PROBEX_ARGV_LEN + 1];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, PROBEX_ARGV_LEN);
		close(fd);
	}
	strbuf__addf(t, "\"%d\":[", pid);
	for (ssize_t i = 0; i < n;) {
		buf[n] = 0;
		strbuf__add(t, ",", i ? 1 : 0);
		strbuf__add_json_str(t, buf + i);
		i += (ssize_t)strlen(buf + i) + 1;
	}
	strbuf__add(t, "]", 1);
}

/* Whether every call that changes what a descriptor names is recorded (and a path read). */
static bool follows_fds(const uint8_t *sys_flags)
{
	static const char *const calls[] = { "open", "openat", "creat", "close", "dup", "dup2", "dup3",
					     "fcntl", "close_range" };

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		int nr = syscall__nr(calls[i]);

		if (nr >= 0 && (!sys_flags || !(sys_flags[nr] & SYSF_ON)))
			return false;
	}
	return true;
}

void procinfo__add(struct strbuf *t, const int *pids, int n, bool cmdlines,
		   const uint8_t *sys_flags)
{
	if (follows_fds(sys_flags)) {
		strbuf__addf(t, "%s\t{", META_FDS);
		for (int i = 0; i < n; i++) {
			strbuf__add(t, ",", i ? 1 : 0);
			add_fds(t, pids[i], !cmdlines);
		}
		strbuf__add(t, "}\n", 2);
	}
	if (!cmdlines || n <= 0)
		return;
	strbuf__addf(t, "%s\t{", META_CMDLINES);
	for (int i = 0; i < n; i++) {
		strbuf__add(t, ",", i ? 1 : 0);
		add_cmdline(t, pids[i]);
	}
	strbuf__add(t, "}\n", 2);
}
