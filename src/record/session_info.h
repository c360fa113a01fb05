/* Facts about a recording stored in the trace's metadata: known at start (command,
 * clocks, host, options) and at the end (status, counters).  Kept as "key\tvalue" lines,
 * values already in their metadata form, so a spool carries them to `probex recover`. */
#ifndef PROBEX_RECORD_SESSION_INFO_H
#define PROBEX_RECORD_SESSION_INFO_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/records.h"
#include "record/record.h"
#include "common/strbuf.h"

struct ksyms;
struct ksym_add;

struct session_info {
	struct strbuf text;
	struct ksyms *ksyms;
	struct ksym_add *extra;		/* added to ksyms once read: our BPF programs */
	size_t nextra;
	pthread_t ksyms_thread;
	bool ksyms_started, ksyms_open, extra_added;
	int ksyms_fd, kmods_fd;
};

/* Kernel symbols come from the kernel's own lookup, asked after recording (si->ksyms set
 * by the caller, see record/kresolve.h); where that cannot run, from /proc/kallsyms,
 * which must be opened while privileged (kptr_restrict hides the addresses otherwise)
 * and is read in a thread of its own.  session_info__ksyms waits for them (NULL when
 * unavailable) and adds our BPF programs' symbols; they stay owned by si. */
int session_info__load_ksyms(struct session_info *si);
struct ksyms *session_info__ksyms(struct session_info *si);
void session_info__start(struct session_info *si, const struct record_opts *o, pid_t root,
			 const char *missing_probes);
void session_info__end(struct session_info *si, int exit_status, const uint64_t c[CNT__COUNT],
		       uint64_t sideband_lost, const char *extra_drops);
void session_info__free(struct session_info *si);

#endif
