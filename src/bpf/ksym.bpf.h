/* Kernel addresses to names, asked for after recording.  The kernel formats "%pS" with
 * its own symbol lookup (kallsyms_lookup: core kernel, modules, BPF programs), so probex
 * needs neither /proc/kallsyms nor root for it: reading and parsing that file took ~40 ms
 * of CPU on every recording, while a recording's kernel stacks hold a few hundred to a
 * few thousand distinct addresses.  User space runs this program with BPF_PROG_TEST_RUN,
 * which needs only the program's descriptor. */
#ifndef PROBEX_BPF_KSYM_BPF_H
#define PROBEX_BPF_KSYM_BPF_H

#include "bpf/ksym_io.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ksym_io);
} ksym_buf SEC(".maps");

/* bpf_snprintf takes its format from read-only data. */
static const char ksym_fmt[] = "%pS";

SEC("syscall")
int ksym_lookup(void *ctx)
{
	__u32 zero = 0;
	struct ksym_io *io = bpf_map_lookup_elem(&ksym_buf, &zero);

	if (!io)
		return 1;
	for (int i = 0; i < PROBEX_KSYM_BATCH; i++) {
		__u64 v[1];

		if (i >= io->n)
			break;
		v[0] = io->addr[i];
		io->len[i] = bpf_snprintf(io->label[i], PROBEX_KSYM_LABEL, ksym_fmt, v, sizeof(v));
	}
	return 0;
}

#endif
