#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "record/session_info.h"
#include "record/uprobes.h"
#include "symbolize/ksym.h"
#include "trace/schema.h"

static const char *const counter_names[CNT__COUNT] = {
	[CNT_RB_DROP0 + REC_SYSCALL] = "ringbuf_syscall",
	[CNT_RB_DROP0 + REC_SCHED_SWITCH] = "ringbuf_sched_switch",
	[CNT_RB_DROP0 + REC_FORK] = "ringbuf_process_fork",
	[CNT_RB_DROP0 + REC_EXIT] = "ringbuf_process_exit",
	[CNT_RB_DROP0 + REC_EXEC] = "ringbuf_process_exec",
	[CNT_RB_DROP0 + REC_PAGE_FAULT] = "ringbuf_page_fault",
	[CNT_RB_DROP0 + REC_CPU_SAMPLE] = "ringbuf_cpu_sample",
	[CNT_RB_DROP0 + REC_IO_URING_COMPLETE] = "ringbuf_io_uring_complete",
	[CNT_RB_DROP0 + REC_SYSCALL_UNFINISHED] = "ringbuf_syscall_unfinished",
	[CNT_RB_DROP0 + REC_OFF_CPU] = "ringbuf_off_cpu",
	[CNT_RB_DROP0 + REC_WAKER] = "ringbuf_waker_stack",
	[CNT_RB_DROP0 + REC_OFF_KSTACK] = "ringbuf_off_cpu_kernel_stack",
	[CNT_USTACK_ERR] = "user_stack_failed",
	[CNT_KSTACK_ERR] = "kernel_stack_failed",
	[CNT_STACK_TRUNC] = "stack_truncated",
	[CNT_TRACED_FULL] = "traced_map_full",
	[CNT_TSTATE_FULL] = "thread_map_full",
	[CNT_IOU_FULL] = "io_uring_map_full",
	[CNT_UNPAIRED_EXIT] = "syscall_exit_unpaired",
	[CNT_SAMPLES_TOTAL] = "cpu_sampler_calls",
	[CNT_SAMPLES_TRACED] = "cpu_samples_traced",
	[CNT_EVENTS] = "records_submitted",
	[CNT_IOU_UNMATCHED] = "io_uring_complete_unmatched",
	[CNT_USTACK_COPY_ERR] = "user_stack_copy_failed",
	[CNT_PATH_TRUNC] = "syscall_path_truncated",
	[CNT_PATH_ERR] = "syscall_path_unreadable",
	[CNT_OFFCPU_SHORT] = "off_cpu_short_intervals",
	[CNT_OFFCPU_SHORT_NS] = "off_cpu_short_ns",
	[CNT_STATS_SPILL] = "exact_spilled",
	[CNT_OFFCPU_LATE_STACK] = "off_cpu_stacks_at_end",
	[CNT_OFFCPU_LATE_NOUSER] = "off_cpu_stacks_at_end_kernel_only",
	[CNT_RB_DROP0 + REC_PROBE] = "ringbuf_probe",
	[CNT_RB_DROP0 + REC_PROBE_STR] = "ringbuf_probe_str",
	[CNT_RB_DROP0 + REC_PROBE_CALL] = "ringbuf_probe_call",
	[CNT_PROBE_STR_FAULT] = "probe_string_unreadable",
	[CNT_PROBE_STR_CUT] = "probe_string_truncated",
	[CNT_PROBE_UNPAIRED] = "probe_return_unpaired",
	[CNT_ARGV_CUT] = "argv_truncated",
	[CNT_PY_STACKS] = "python_stacks",
	[CNT_PY_CUT] = "python_stacks_truncated",
	[CNT_PY_BAD] = "python_chain_unreadable",
	[CNT_PY_NO_THREAD] = "python_thread_unknown",
};

static void *ksyms_main(void *arg)
{
	struct session_info *si = arg;

	si->ksyms = ksyms__load_fd(si->ksyms_fd, si->kmods_fd);
	if (!si->ksyms)
		log__warn("kernel symbols unavailable (%s): kernel frames will be addresses",
			  strerror(errno));
	return NULL;
}

/* Reading /proc/kallsyms is 30-50 ms of kernel formatting and parsing: it runs beside the
 * command instead of before it.  The files are opened here, while root: the kernel
 * decides at open whether their reader sees addresses. */
int session_info__load_ksyms(struct session_info *si)
{
	int err = ksyms__open(&si->ksyms_fd, &si->kmods_fd);

	si->ksyms_open = !err;
	if (!err)
		err = -pthread_create(&si->ksyms_thread, NULL, ksyms_main, si);
	if (err) {
		log__warn("kernel symbols unavailable (%s): kernel frames will be addresses",
			  strerror(-err));
		return 0;
	}
	si->ksyms_started = true;
	return 0;
}

struct ksyms *session_info__ksyms(struct session_info *si)
{
	if (si->ksyms_started) {
		pthread_join(si->ksyms_thread, NULL);
		si->ksyms_started = false;
	}
	if (si->ksyms && si->nextra && !si->extra_added) {
		si->extra_added = true;
		if (ksyms__add(si->ksyms, si->extra, si->nextra))
			log__warn("our BPF programs' frames will be addresses: out of memory");
	}
	if (si->ksyms_open) {
		close(si->ksyms_fd);
		if (si->kmods_fd >= 0)
			close(si->kmods_fd);
		si->ksyms_open = false;
	}
	return si->ksyms;
}

static void kv(struct session_info *si, const char *key)
{
	strbuf__addf(&si->text, "%s\t", key);
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void session_info__start(struct session_info *si, const struct record_opts *o, pid_t root,
			 const char *missing)
{
	uint64_t mono = clock_ns(CLOCK_MONOTONIC), real = clock_ns(CLOCK_REALTIME);
	struct utsname u;
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	uname(&u);
	strbuf__addf(&si->text, "%s\t%lu\n", META_SAMPLE_FREQ_HZ, o->sample_freq);
	strbuf__addf(&si->text, "%s\t%s\n", META_STACK_FORMAT, META_STACK_FORMAT_V1);
	strbuf__addf(&si->text, "%s\t%s\n", META_VERSION, PROBEX_VERSION);
	kv(si, META_COMMAND);
	strbuf__add(&si->text, "[", 1);
	for (int i = 0; i < o->cmd_argc; i++) {
		if (i)
			strbuf__add(&si->text, ",", 1);
		strbuf__add_json_str(&si->text, o->cmd[i]);
	}
	strbuf__add(&si->text, "]\n", 2);
	strbuf__addf(&si->text, "%s\t%llu\n", META_START_TS, (unsigned long long)mono);
	strbuf__addf(&si->text, "%s\t%llu\n", META_START_WALLCLOCK, (unsigned long long)real);
	strbuf__addf(&si->text, "%s\t%llu\n", META_BOOT_WALLCLOCK, (unsigned long long)(real - mono));
	strbuf__addf(&si->text, "%s\t%d\n", META_ROOT_PID, (int)root);
	kv(si, META_HOSTNAME);
	strbuf__add_json_str(&si->text, host);
	strbuf__addf(&si->text, "\n%s\t%s %s %s\n", META_KERNEL, u.sysname, u.release, u.machine);
	_Static_assert((int)STACKS_SAMPLED == TRACE_STACKS_SAMPLED && (int)STACKS_ALL == TRACE_STACKS_ALL &&
		       (int)STACKS_NONE == TRACE_STACKS_NONE, "probex.stack_mode is the --stacks mode");
	strbuf__addf(&si->text, "%s\t%s\n", META_STACK_MODE, stack_mode_names[o->stacks]);
	strbuf__addf(&si->text, "%s\t%u\n", META_USTACK_COPY, o->ustack_copy_bytes);
	strbuf__addf(&si->text, "%s\t%llu\n", META_STACK_INTERVAL_NS,
		     o->stacks == STACKS_SAMPLED ? (unsigned long long)o->stack_interval_ns : 0ull);
	kv(si, META_MISSING_PROBES);
	strbuf__add(&si->text, "[", 1);
	for (const char *p = missing; *p;) {
		const char *e = strchrnul(p, ',');
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)(e - p), p);
		if (p != missing)
			strbuf__add(&si->text, ",", 1);
		strbuf__add_json_str(&si->text, name);
		p = *e ? e + 1 : e;
	}
	strbuf__add(&si->text, "]\n", 2);
	if (o->uprobes && o->uprobes->n) {
		kv(si, META_PROBES);
		uprobes__describe(o->uprobes, &si->text);
		strbuf__add(&si->text, "\n", 1);
	}
}

void session_info__end(struct session_info *si, int exit_status, const uint64_t c[CNT__COUNT],
		       uint64_t sideband_lost, const char *extra_drops)
{
	strbuf__free(&si->text);
	strbuf__addf(&si->text, "%s\t%d\n", META_EXIT_STATUS, exit_status);
	kv(si, META_DROPS);
	strbuf__add(&si->text, "{", 1);
	/* Slot 0 has no name: the separator goes before every counter written but the first. */
	for (int i = 0; i < CNT__COUNT; i++) {
		if (!counter_names[i])
			continue;
		strbuf__addf(&si->text, "\"%s\":%llu,", counter_names[i], (unsigned long long)c[i]);
	}
	if (extra_drops)
		strbuf__add(&si->text, extra_drops, strlen(extra_drops));
	strbuf__addf(&si->text, "\"sideband_lost\":%llu}\n", (unsigned long long)sideband_lost);
}

void session_info__free(struct session_info *si)
{
	ksyms__free(session_info__ksyms(si));
	si->ksyms = NULL;
	for (size_t i = 0; i < si->nextra; i++)
		free((char *)si->extra[i].label);
	free(si->extra);
	si->extra = NULL;
	si->nextra = 0;
	strbuf__free(&si->text);
}
