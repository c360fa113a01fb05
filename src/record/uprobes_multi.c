/* u: probes as uprobe_multi links (Linux 6.6+): every function of one binary in one link
 * for the entries and one for the returns.  Detaching a uprobe waits for a grace period
 * of the kernel's; one link per probe made a recording of 10 probes ~2.4 s longer to end
 * on a VM, one link per binary waits twice. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "record/uprobes.h"

#define ATTACH_UPROBE_MULTI	48	/* enum bpf_attach_type BPF_TRACE_UPROBE_MULTI */
#define UPROBE_MULTI_RETURN	1	/* BPF_F_UPROBE_MULTI_RETURN */
#define CMD_LINK_CREATE		28	/* enum bpf_cmd BPF_LINK_CREATE */

bool uprobes_multi__supported(void)
{
	struct utsname u;
	unsigned int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 6);
}

static void put32(unsigned char *a, size_t off, uint32_t v)
{
	memcpy(a + off, &v, 4);
}

static void put64(unsigned char *a, size_t off, uint64_t v)
{
	memcpy(a + off, &v, 8);
}

/* BPF_LINK_CREATE's uprobe_multi attributes, laid out as in <linux/bpf.h> (the installed
 * header may predate them): prog_fd, target_fd, attach_type, flags, then path, offsets,
 * ref_ctr_offsets, cookies, cnt, flags, pid. */
static int link_create(int prog_fd, const char *path, const uint64_t *offs, const uint64_t *cookies,
		       uint32_t cnt, bool ret)
{
	unsigned char a[64] = { 0 };
	long fd;

	put32(a, 0, (uint32_t)prog_fd);
	put32(a, 8, ATTACH_UPROBE_MULTI);
	put64(a, 16, (uintptr_t)path);
	put64(a, 24, (uintptr_t)offs);
	put64(a, 40, (uintptr_t)cookies);
	put32(a, 48, cnt);
	put32(a, 52, ret ? UPROBE_MULTI_RETURN : 0);
	fd = syscall(__NR_bpf, CMD_LINK_CREATE, a, sizeof(a));
	return fd < 0 ? -errno : (int)fd;
}

bool uprobe__has_str(const struct uprobe_def *d)
{
	for (int i = 0; i < d->nargs; i++)
		if (d->args[i].type == PA_STR)
			return true;
	return false;
}

/* Probes i and k go into the same links: u: probes on one binary, of one entry program. */
static bool same_links(const struct uprobe_set *s, int i, int k)
{
	return s->d[k].kind == UPK_U && !strcmp(s->d[k].path, s->d[i].path) &&
	       uprobe__has_str(&s->d[k]) == uprobe__has_str(&s->d[i]);
}

/* The probes of d[first]'s links (from first on) into offs and ids. */
static uint32_t same_binary(const struct uprobe_set *s, int first, uint64_t *offs, uint64_t *ids)
{
	uint32_t n = 0;

	for (int i = first; i < s->n; i++)
		if (same_links(s, first, i)) {
			offs[n] = s->d[i].offset;
			ids[n++] = (uint64_t)i;
		}
	return n;
}

int uprobes_multi__attach(struct uprobe_set *s, int enter_fd, int enter_str_fd, int exit_fd, int *fds,
			  int *nfds, int *bad)
{
	uint64_t offs[PROBEX_PROBES_MAX], ids[PROBEX_PROBES_MAX];
	int err = 0;

	for (int i = 0; i < s->n && !err; i++) {
		bool seen = false;
		uint32_t n;
		int fd;

		for (int k = 0; k < i && !seen; k++)
			seen = same_links(s, i, k);
		if (s->d[i].kind != UPK_U || seen)
			continue;
		*bad = i;
		n = same_binary(s, i, offs, ids);
		fd = link_create(uprobe__has_str(&s->d[i]) ? enter_str_fd : enter_fd, s->d[i].path, offs,
				 ids, n, false);
		if (fd >= 0)
			fds[(*nfds)++] = fd;
		fd = fd < 0 ? fd : link_create(exit_fd, s->d[i].path, offs, ids, n, true);
		if (fd >= 0)
			fds[(*nfds)++] = fd;
		err = fd < 0 ? fd : 0;
	}
	return err;
}

static void *close_main(void *arg)
{
	close((int)(intptr_t)arg);
	return NULL;
}

void uprobes_multi__close(int *fds, int n)
{
	pthread_t t[3 * PROBEX_PROBES_MAX];
	bool started[3 * PROBEX_PROBES_MAX];

	for (int i = 0; i < n; i++) {
		started[i] = !pthread_create(&t[i], NULL, close_main, (void *)(intptr_t)fds[i]);
		if (!started[i])
			close(fds[i]);
	}
	for (int i = 0; i < n; i++)
		if (started[i])
			pthread_join(t[i], NULL);
}
