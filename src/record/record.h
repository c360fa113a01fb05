/* The recording session: run a command under the BPF probes and spool what they see.
 * What becomes of the spool (a trace, a viewer) is the caller's business. */
#ifndef PROBEX_RECORD_RECORD_H
#define PROBEX_RECORD_RECORD_H

#include <signal.h>
#include <stdint.h>

#include "bpf/records.h"
#include "common/priv.h"

struct ksyms;
struct uprobe_set;

struct record_opts {
	char *const *cmd;		/* NULL-terminated argv of the command */
	int cmd_argc;
	const char *spool_path;		/* created here, exclusively, as the invoking user */
	unsigned long sample_freq;	/* CPU samples per second and CPU */
	enum stack_mode stacks;
	uint64_t stack_interval_ns;	/* STACKS_SAMPLED: one stack per thread and class per interval */
	uint32_t ustack_copy_bytes;	/* CPU samples: user stack bytes copied; 0: fp walks */
	unsigned long ringbuf_bytes;	/* power of two; 0: 2 MiB a CPU, at least 4 MiB */
	const uint8_t *sys_flags;	/* SYSF_* per syscall number (PROBEX_SYSCALL_MAX) */
	uint64_t offcpu_min_ns;		/* off-CPU intervals shorter than this are only counted */
	bool lossless;			/* pause the tree while the ring buffer is filling */
	const int *pids;		/* attach to these running processes (no command) */
	int npids;
	bool all_cpus;			/* every process on the machine */
	uint64_t duration_ns;		/* stop the tree after this long; 0 = never */
	uint64_t max_spool_bytes;	/* stop the tree once the spool has this much; 0 = no limit */
	uint64_t ring_bytes;		/* flight recorder: keep the most recent this much; 0 = all */
	/* The command's signal mask; NULL: the caller's.  Lets a caller that keeps stop
	 * requests blocked after recording (to finish the trace) start the command unmasked. */
	const sigset_t *child_mask;
	struct uprobe_set *uprobes;	/* --probe: parsed and resolved (record/uprobes.h); NULL: none */
};

struct record_result {
	int status;			/* the command's exit status (128+N for signal N, 127 not run) */
	uint64_t counters[CNT__COUNT];	/* the kernel side's drop and event counters */
	uint64_t sideband_lost;		/* mmap side-band records the kernel could not deliver */
	uint64_t exact[REC__COUNT];	/* events the kernel counted, per record kind */
	uint64_t pauses, paused_ns;	/* --lossless: times the tree was paused, and for how long */
	struct ksyms *ksyms;		/* read while privileged; the caller frees it (ksyms__free) */
};

/* What can be checked before anything is set up: the command exists and the sample rate
 * is allowed.  Returns 0, or the exit status to leave with (message printed). */
int record__check(const struct record_opts *o);

/* Record the command to o->spool_path.  Returns 0 with res filled (res->status is the
 * command's), or a negative errno when recording failed; res->status is then the exit
 * status to use when the command's own is known (e.g. stopped during set-up), else 1.
 * On failure no spool is left behind unless it holds everything recorded so far. */
int record__run(const struct record_opts *o, const struct priv_target *priv,
		struct record_result *res);

#endif
