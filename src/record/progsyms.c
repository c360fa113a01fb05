#include <bpf/bpf.h>
#include <stdio.h>
#include <stdlib.h>

#include "record/progsyms.h"
#include "symbolize/ksym.h"

/* Our programs as kallsyms names them (tag, then the full function name from BTF, not
 * the 15-character program name), for kernel stacks sampled inside them: the kernel's
 * symbol lookup runs once they are unloaded, and kallsyms (where it is read instead) is
 * read while they load. */
void progsyms__read(const int *fds, const char *const *names, int nprogs, struct ksym_add **out,
		    size_t *n)
{
	struct ksym_add *a = calloc(nprogs, sizeof(*a));
	size_t cnt = 0;

	*out = a;
	*n = 0;
	for (int i = 0; a && i < nprogs; i++) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info), flen = 0;
		__u64 addr = 0;
		char *label;
		int fd = fds[i];

		info.nr_jited_ksyms = 1;
		info.jited_ksyms = (__u64)(unsigned long)&addr;
		info.nr_jited_func_lens = 1;
		info.jited_func_lens = (__u64)(unsigned long)&flen;
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) || !addr || !flen)
			continue;
		if (asprintf(&label, "bpf_prog_%02x%02x%02x%02x%02x%02x%02x%02x_%s", info.tag[0],
			     info.tag[1], info.tag[2], info.tag[3], info.tag[4], info.tag[5],
			     info.tag[6], info.tag[7], names[i]) < 0)
			break;
		a[cnt++] = (struct ksym_add){ .addr = addr, .len = flen, .label = label, .module = "bpf" };
	}
	*n = cnt;
}
