#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/progsyms.h"
#include "symbolize/ksym.h"
#include "trace/schema.h"

/* A program's functions: the main one first, then its subprograms, as the kernel JITed
 * them (each program has its own copy of a subprogram it calls). */
struct prog_funcs {
	__u32 n, cap;
	__u64 *addrs;
	__u32 *lens;
	struct bpf_func_info *finfo;
	__u32 nfinfo, btf_id;
};

static int prog_funcs__reserve(struct prog_funcs *f, __u32 cap)
{
	__u64 *a = realloc(f->addrs, cap * sizeof(*a));
	__u32 *l = a ? realloc(f->lens, cap * sizeof(*l)) : NULL;
	struct bpf_func_info *fi = l ? realloc(f->finfo, cap * sizeof(*fi)) : NULL;

	if (a)
		f->addrs = a;
	if (l)
		f->lens = l;
	if (!fi)
		return -ENOMEM;
	f->finfo = fi;
	f->cap = cap;
	return 0;
}

/* One info call fills every array when they are large enough (a program has a handful of
 * functions); a second with exact sizes when not. */
static int prog_funcs__read(struct prog_funcs *f, int fd)
{
	for (int pass = 0; pass < 2; pass++) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info), need;

		info.nr_jited_ksyms = info.nr_jited_func_lens = info.nr_func_info = f->cap;
		info.jited_ksyms = (__u64)(unsigned long)f->addrs;
		info.jited_func_lens = (__u64)(unsigned long)f->lens;
		info.func_info = (__u64)(unsigned long)f->finfo;
		info.func_info_rec_size = sizeof(*f->finfo);
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			return -errno;
		/* No addresses: JIT off, or hidden from a reader without privileges. */
		if (!info.jited_ksyms || info.nr_jited_ksyms != info.nr_jited_func_lens)
			return -ENODATA;
		need = info.nr_jited_ksyms > info.nr_func_info ? info.nr_jited_ksyms : info.nr_func_info;
		if (need <= f->cap) {
			f->n = info.nr_jited_ksyms;
			f->nfinfo = info.func_info ? info.nr_func_info : 0;
			f->btf_id = info.btf_id;
			return 0;
		}
		if (prog_funcs__reserve(f, need))
			return -ENOMEM;
	}
	return -EAGAIN;
}

/* Function i's name: the program's own for the main one, BTF's for a subprogram. */
static const char *prog_funcs__name(const struct prog_funcs *f, __u32 i, const char *main,
				    struct btf **btf, __u32 *btf_id)
{
	const struct btf_type *t;
	const char *name;

	if (i == 0 || i >= f->nfinfo || !f->btf_id)
		return main;
	/* Our programs share one object's BTF: loaded once. */
	if (*btf_id != f->btf_id) {
		btf__free(*btf);
		*btf = btf__load_from_kernel_by_id(f->btf_id);
		*btf_id = f->btf_id;
	}
	t = *btf ? btf__type_by_id(*btf, f->finfo[i].type_id) : NULL;
	name = t ? btf__name_by_offset(*btf, t->name_off) : NULL;
	return name && name[0] ? name : main;
}

static int ksym_adds__push(struct ksym_add **a, size_t *n, size_t *cap, __u64 addr, __u32 len,
			   const char *name)
{
	struct ksym_add *na;
	char *label;

	if (*n == *cap) {
		na = realloc(*a, (*cap * 2 + 16) * sizeof(*na));
		if (!na)
			return -ENOMEM;
		*a = na;
		*cap = *cap * 2 + 16;
	}
	if (asprintf(&label, STACK_PROBEX_BPF_PREFIX "%s", name) < 0)
		return -ENOMEM;
	(*a)[(*n)++] = (struct ksym_add){ .addr = addr, .len = len, .label = label, .module = "bpf" };
	return 0;
}

/* Our programs and their subprograms named as ours ("probex:sched_process_exit",
 * "probex:stat_add", in module "bpf"), for kernel stacks sampled inside them: the kernel's
 * symbol lookup runs once they are unloaded, and kallsyms (where it is read instead) may
 * miss some, as programs come and go while it is read. */
void progsyms__read(const int *fds, const char *const *names, int nprogs, struct ksym_add **out,
		    size_t *n)
{
	struct prog_funcs f = { 0 };
	struct ksym_add *a = NULL;
	size_t cnt = 0, cap = 0;
	struct btf *btf = NULL;
	__u32 btf_id = 0;
	int err = prog_funcs__reserve(&f, 8);

	for (int i = 0; !err && i < nprogs; i++) {
		if (fds[i] < 0 || prog_funcs__read(&f, fds[i]))
			continue;
		for (__u32 j = 0; !err && j < f.n; j++)
			if (f.addrs[j] && f.lens[j])
				err = ksym_adds__push(&a, &cnt, &cap, f.addrs[j], f.lens[j],
						      prog_funcs__name(&f, j, names[i], &btf, &btf_id));
	}
	btf__free(btf);
	free(f.addrs);
	free(f.lens);
	free(f.finfo);
	*out = a;
	*n = cnt;
}
