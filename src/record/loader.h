/* Loading src/bpf/probex.bpf.c: the light skeleton first, libbpf's skeleton when that
 * fails.  Either way the result is a set of descriptors (record/progs.h), which is all
 * probes.c attaches and reads.
 *
 * The light skeleton (bpftool gen skeleton -L) is a loader program that the kernel runs:
 * CO-RE relocations and the tracepoints' BTF ids are resolved by the kernel against its
 * own, already parsed BTF.  libbpf's skeleton does that work in user space, and reads the
 * kernel's BTF to do it: a copy and a parse of the whole kernel's types, about two
 * thirds of what loading costs on the test machine.  The light skeleton cannot leave a program
 * out, so a kernel that lacks an optional tracepoint (or a shape a program reads) fails
 * it as a whole; libbpf's skeleton then loads what the kernel can take. */
#ifndef PROBEX_RECORD_LOADER_H
#define PROBEX_RECORD_LOADER_H
#include <stdbool.h>
#include <stdint.h>

#include "record/probes.h"
#include "record/progs.h"

struct probex;
struct probex_light;

struct bpfobj {
	int maps[MAP__COUNT];
	int progs[PROG__COUNT];		/* < 0: not loaded */
	uint32_t *root_tgid;		/* in the object's .bss, mapped writable */
	char missing[512];		/* programs left out, comma-separated ("" when none) */
	bool light;			/* loaded by the light skeleton */
	struct probex *skel;		/* the skeleton that owns the descriptors */
	struct probex_light *lskel;
};

extern const char *const bpfobj__prog_names[PROG__COUNT];

/* 0, or a negative errno after logging why. */
int bpfobj__load(struct bpfobj *b, const struct probes_opts *opts);
/* Closes every descriptor of b (links attached to its programs are the caller's). */
void bpfobj__close(struct bpfobj *b);

#endif
