/* The kernel's BTF, mapped instead of read.
 *
 * libbpf (1.1, the version Debian 12 ships) reads /sys/kernel/btf/vmlinux with read(2),
 * and sysfs hands it out a page per call: ~40 ms for this machine's 5.4 MB,
 * about half of the time probex needs before the traced command may start.  Kernels from
 * 6.16 let the file be mapped read-only; libbpf is linked statically with
 * --wrap=btf__load_vmlinux_btf, so every load of the kernel's BTF (libbpf's own for CO-RE
 * and attach targets, and probex's when it checks tracepoint shapes) comes here first.
 * Only libbpf's skeleton, the fallback of record/loader.c, needs it.
 * Older kernels refuse the mapping and get libbpf's read. */
#include <bpf/btf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/kbtf.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

struct btf *__real_btf__load_vmlinux_btf(void);
struct btf *__wrap_btf__load_vmlinux_btf(void);

static struct btf *kbtf__map(void)
{
	struct btf *btf = NULL;
	struct stat st;
	void *data;
	int fd;

	fd = open(VMLINUX_BTF, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || st.st_size <= 0)
		goto cleanup;
	data = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (data == MAP_FAILED)
		goto cleanup;
	btf = btf__new(data, st.st_size);	/* copies what it keeps; NULL on error */
	munmap(data, st.st_size);
cleanup:
	close(fd);
	return btf;
}

/* --probe's object needs the BTF for its CO-RE relocations after the main object is
 * loaded: parsed meanwhile (~12 ms) on another CPU, it is off the start-up's path. */
static pthread_t prefetch_thread;
static bool prefetching;
static struct btf *prefetched;

static void *prefetch_main(void *arg)
{
	prefetched = kbtf__map();
	return arg;
}

void kbtf__prefetch(void)
{
	if (!prefetching)
		prefetching = !pthread_create(&prefetch_thread, NULL, prefetch_main, NULL);
}

static struct btf *prefetch_take(void)
{
	struct btf *btf;

	if (!prefetching)
		return NULL;
	pthread_join(prefetch_thread, NULL);
	prefetching = false;
	btf = prefetched;
	prefetched = NULL;
	return btf;
}

void kbtf__prefetch_end(void)
{
	btf__free(prefetch_take());
}

struct btf *__wrap_btf__load_vmlinux_btf(void)
{
	struct btf *btf = prefetch_take();

	btf = btf ? btf : kbtf__map();
	return btf ? btf : __real_btf__load_vmlinux_btf();
}
