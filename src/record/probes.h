/* Kernel side setup: open → configure → load → attach the BPF programs, the per-CPU
 * CPU-clock samplers and the mmap side-band buffers; read counters; detach. */
#ifndef PROBEX_RECORD_PROBES_H
#define PROBEX_RECORD_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/records.h"

struct perf_event_header;
struct probes;
struct uprobe_set;

typedef int (*probes_record_fn)(void *ctx, const void *data, uint32_t size);
typedef void (*probes_sideband_fn)(void *ctx, const struct perf_event_header *ev);

struct probes_opts {
	enum stack_mode stacks;
	uint64_t stack_interval_ns;
	uint32_t ustack_copy_bytes;	/* CPU samples: user stack bytes copied; 0: fp walks */
	unsigned long sample_freq;
	unsigned long ringbuf_bytes;	/* power of two; 0: 2 MiB a CPU, at least 4 MiB */
	const uint8_t *sys_flags;	/* SYSF_* per syscall number (PROBEX_SYSCALL_MAX) */
	uint64_t offcpu_min_ns;		/* shorter off-CPU intervals are only counted */
	bool trace_all;			/* -a: every task but probex's own */
	struct uprobe_set *uprobes;	/* --probe: attached after the main object; NULL: none */
	probes_record_fn on_record;	/* called from probes__poll for each ring-buffer record */
	probes_sideband_fn on_sideband;	/* ... and for each side-band perf record */
	void *ctx;
};

/* Everything is attached when this returns 0, but nothing is traced until a process is
 * added with probes__trace_pid.  Optional probes the kernel lacks are skipped with one
 * warning each and listed in probes__missing(). */
int probes__open(struct probes **p, const struct probes_opts *opts);
int probes__trace_pid(struct probes *p, uint32_t tgid);
/* Trace a running process from now on: all its threads, and what they fork.  Nothing is
 * done to the process itself.  -ESRCH when it is gone (or goes while attaching). */
int probes__attach_pid(struct probes *p, uint32_t tgid);
/* Consume what is buffered, waiting at most timeout_ms for more.  Returns records seen or
 * a negative errno (from the callbacks: e.g. the spool could not be written). */
int probes__poll(struct probes *p, int timeout_ms);
/* End the wait of a probes__poll in another thread now (NULL: nothing to do). */
void probes__wake(struct probes *p);
/* Sum the per-CPU counters (enum counter). */
int probes__counters(struct probes *p, uint64_t out[CNT__COUNT]);
/* The exact counts as probex.exact's JSON (record/stats.h). */
struct strbuf;
int probes__stats(struct probes *p, struct strbuf *out, uint64_t per_kind[REC__COUNT]);
uint64_t probes__sideband_lost(const struct probes *p);
/* The ring buffer map and its size. */
int probes__ring(const struct probes *p, uint64_t *bytes);
/* Traced tgids right now (for stopping the tree); returns count, at most max. */
int probes__traced_pids(struct probes *p, uint32_t *pids, int max);
/* The traced-process map (for the guardian). */
int probes__traced_map_fd(const struct probes *p);
/* A map of the object by its record/progs.h name (MAP_unw_rows ...). */
int probes__map_fd(const struct probes *p, int map);
/* What the guardian needs held to stop the tree if probex dies: the traced-process map
 * first, then the links of the programs that keep it current.  Returns the count. */
int probes__guard_fds(const struct probes *p, int *fds, int max);
/* Comma-separated list of probes that could not be attached ("" when none). */
const char *probes__missing(const struct probes *p);
/* Kernel symbols of the loaded programs (labels malloc'd, the array too; none on error). */
struct ksym_add;
void probes__prog_syms(const struct probes *p, struct ksym_add **out, size_t *n);
/* A lazy kernel symbol table served by the loaded lookup program (record/kresolve.h);
 * it outlives p.  NULL and errno when it cannot run. */
struct ksyms *probes__ksyms(const struct probes *p);
/* Detach everything and free. */
void probes__close(struct probes *p);
/* The same in a thread of its own (or here, when no thread can be started); the process
 * may exit before it is done: the kernel then detaches what is left. */
void probes__close_async(struct probes *p);

#endif
