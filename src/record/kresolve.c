#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bpf/ksym_io.h"
#include "common/log.h"
#include "record/kresolve.h"
#include "symbolize/ksym.h"

struct kresolver {
	int prog_fd, map_fd;
	bool warned;
	struct ksym_io io;
};

static void kresolver__free(void *ctx)
{
	struct kresolver *r = ctx;

	if (!r)
		return;
	if (r->prog_fd >= 0)
		close(r->prog_fd);
	if (r->map_fd >= 0)
		close(r->map_fd);
	free(r);
}

/* Up to PROBEX_KSYM_BATCH addresses through one run of the program. */
static int kresolver__run(struct kresolver *r, const uint64_t *addrs, size_t n, char *out,
			  size_t stride)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	__u32 zero = 0;

	memset(&r->io, 0, offsetof(struct ksym_io, label));
	memcpy(r->io.addr, addrs, n * sizeof(*addrs));
	r->io.n = (__u32)n;
	if (bpf_map_update_elem(r->map_fd, &zero, &r->io, BPF_ANY) ||
	    bpf_prog_test_run_opts(r->prog_fd, &topts) ||
	    bpf_map_lookup_elem(r->map_fd, &zero, &r->io))
		return -errno;
	if (topts.retval)
		return -EIO;
	for (size_t i = 0; i < n; i++) {
		int len = r->io.len[i];
		char *dst = out + i * stride;

		/* len counts the NUL; a cut or failed answer names nothing. */
		if (len <= 1 || len > PROBEX_KSYM_LABEL || (size_t)len > stride) {
			dst[0] = '\0';
			continue;
		}
		memcpy(dst, r->io.label[i], len);
		dst[len - 1] = '\0';
	}
	return 0;
}

static int kresolver__lookup(void *ctx, const uint64_t *addrs, size_t n, char *out, size_t stride)
{
	struct kresolver *r = ctx;
	int err = 0;

	for (size_t i = 0; i < n && !err; i += PROBEX_KSYM_BATCH) {
		size_t m = n - i < PROBEX_KSYM_BATCH ? n - i : PROBEX_KSYM_BATCH;

		err = kresolver__run(r, addrs + i, m, out + i * stride, stride);
	}
	if (err && !r->warned) {
		r->warned = true;
		log__warn("kernel symbols unavailable (%s): kernel frames will be addresses",
			  strerror(-err));
	}
	return err;
}

/* Finalization runs without privileges; before Linux 6.5 every bpf() command but a few
 * needed CAP_BPF, so the lookup would fail there (kallsyms, read while root, is used). */
static bool kresolve__kernel_ok(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 5);
}

struct ksyms *kresolve__ksyms(int prog_fd, int map_fd)
{
	struct kresolver *r;
	char probe[KSYMS_LABEL_MAX];
	uint64_t zero = 0;
	struct ksyms *k;
	int err;

	if (!kresolve__kernel_ok()) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->prog_fd = fcntl(prog_fd, F_DUPFD_CLOEXEC, 0);
	r->map_fd = fcntl(map_fd, F_DUPFD_CLOEXEC, 0);
	/* One run to check the program can: the caller falls back to kallsyms if not. */
	err = r->prog_fd < 0 || r->map_fd < 0 ? -errno : kresolver__run(r, &zero, 1, probe, sizeof(probe));
	k = err ? NULL : ksyms__new_lazy(kresolver__lookup, r, kresolver__free);
	if (!k) {
		kresolver__free(r);
		errno = err ? -err : ENOMEM;
	}
	return k;
}
