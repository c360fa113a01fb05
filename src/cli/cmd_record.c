/* The default command: record COMMAND into a spool, turn the spool into a trace, print
 * what was recorded, then serve the viewer on it.  The stages meet only here. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "cli/options.h"
#include "common/log.h"
#include "common/outfile.h"
#include "common/priv.h"
#include "common/test_hooks.h"
#include "finalize/finalize.h"
#include "record/child.h"
#include "record/record.h"
#include "record/uprobes.h"
#include "server/viewer.h"
#include "spool/spool.h"
#include "symbolize/ksym.h"

struct paths {
	char output[PATH_MAX];
	char spool[PATH_MAX + sizeof(SPOOL_SUFFIX)];
};

static int default_output(char *buf, size_t size)
{
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	return strftime(buf, size, "probex-%Y%m%d-%H%M%S.parquet", &tm) ? 0 : -ENAMETOOLONG;
}

/* The output and spool paths, checked (with the user's identity) before anything starts. */
static int paths__resolve(struct paths *p, const char *output)
{
	struct stat st;

	if (output)
		snprintf(p->output, sizeof(p->output), "%s", output);
	else if (default_output(p->output, sizeof(p->output)))
		return 1;
	if (outfile__check(p->output))
		return 1;
	snprintf(p->spool, sizeof(p->spool), "%s%s", p->output, SPOOL_SUFFIX);
	if (lstat(p->spool, &st) == 0) {
		log__error("%s exists: an earlier probex run was interrupted. Turn it into a trace with "
			   "`probex recover %s`, or delete it", p->spool, p->spool);
		return 1;
	}
	return 0;
}

/* Under sudo, only what the invoking user could trace without it: their own processes.
 * -a would show every user's processes, --pid of another user's process its memory map
 * and stacks. */
static int check_targets(const struct record_opts *ro, const struct priv_target *priv)
{
	char path[32];
	struct stat st;

	if (!priv->valid)
		return 0;
	if (ro->all_cpus) {
		log__error("-a records every user's processes: under sudo it is refused; run it as root");
		return 1;
	}
	for (int i = 0; i < ro->npids; i++) {
		snprintf(path, sizeof(path), "/proc/%d", ro->pids[i]);
		if (stat(path, &st) == 0 && st.st_uid != priv->uid) {
			log__error("--pid %d belongs to uid %u: under sudo probex attaches only to %s's "
				   "processes", ro->pids[i], (unsigned)st.st_uid, priv->user);
			return 1;
		}
	}
	return 0;
}

/* The command and the paths, checked with the user's identity before anything starts. */
static int check_as(const struct record_opts *ro, struct paths *p, const char *output,
		    const struct priv_target *priv)
{
	struct priv_fs saved;
	int err;

	err = priv__fs_enter(priv, &saved);
	if (err) {
		log__error("cannot act as uid %u: %s", priv->uid, strerror(-err));
		return 1;
	}
	err = check_targets(ro, priv);
	if (!err)
		err = record__check(ro);
	if (!err)
		err = paths__resolve(p, output);
	priv__fs_leave(&saved);
	return err;
}

/* The kinds probex.exact has no counts for, in the order the warning names them: the
 * probes' records and the stacks joined to off_cpu rows. */
static const int uncounted[] = {
	REC_PROBE_CALL, REC_PROBE, REC_PROBE_STR, REC_WAKER, REC_OFF_KSTACK,
};
#define NUNCOUNTED ((int)(sizeof(uncounted) / sizeof(uncounted[0])))

static bool kind_counted(int k)
{
	for (int i = 0; i < NUNCOUNTED; i++)
		if (uncounted[i] == k)
			return false;
	return true;
}

/* " N what" for each kind with drops that probex.exact counts (or, !counted, does not),
 * comma-separated, into kinds; their sum. */
static uint64_t drop_list(const struct record_result *r, bool counted, char *kinds, size_t size)
{
	static const char *const what[REC__COUNT] = {
		[REC_SYSCALL] = "syscalls", [REC_SYSCALL_UNFINISHED] = "unfinished syscalls",
		[REC_SCHED_SWITCH] = "sched_switch", [REC_OFF_CPU] = "off_cpu",
		[REC_PAGE_FAULT] = "page_fault", [REC_CPU_SAMPLE] = "cpu_sample",
		[REC_IO_URING_COMPLETE] = "io_uring_complete", [REC_FORK] = "process_fork",
		[REC_EXIT] = "process_exit", [REC_EXEC] = "process_exec",
		[REC_WAKER] = "waker stacks", [REC_OFF_KSTACK] = "off-CPU kernel stacks",
		[REC_PROBE] = "probe firings", [REC_PROBE_STR] = "probe firings with strings",
		[REC_PROBE_CALL] = "probed calls",
	};
	uint64_t dropped = 0;
	size_t n = 0;

	kinds[0] = 0;
	for (int i = 0; i < (counted ? REC__COUNT : NUNCOUNTED); i++) {
		int k = counted ? i : uncounted[i];
		uint64_t d = r->counters[CNT_RB_DROP0 + k];

		if (!d || (counted && !kind_counted(k)))
			continue;
		dropped += d;
		n += (size_t)snprintf(kinds + n, n < size ? size - n : 0, "%s %llu %s", n ? "," : "",
				      (unsigned long long)d, what[k] ? what[k] : "other records");
		if (n >= size)
			n = size - 1;
	}
	return dropped;
}

/* What the ring buffer dropped, of how many (the exact counts), and what keeps every row;
 * the kinds without exact counts on a line of their own (per probe in probex.drops). */
static void print_drops(const struct record_result *r)
{
	uint64_t dropped, counted = 0;
	char kinds[512];

	for (int k = 0; k < REC__COUNT; k++)
		if (kind_counted(k))
			counted += r->exact[k];
	dropped = drop_list(r, true, kinds, sizeof(kinds));
	if (dropped && counted >= dropped)
		log__warn("dropped %llu of %llu records (%.1f%%):%s; the counts in probex.exact (and "
			  "`probex report`) stay exact; --lossless or a larger --ringbuf-size keeps every row",
			  (unsigned long long)dropped, (unsigned long long)counted,
			  100.0 * (double)dropped / (double)counted, kinds);
	else if (dropped)
		log__warn("dropped %llu records:%s; --lossless or a larger --ringbuf-size keeps every row",
			  (unsigned long long)dropped, kinds);
	if (drop_list(r, false, kinds, sizeof(kinds)))
		log__warn("dropped%s (each probe's in probex.drops); --lossless or a larger "
			  "--ringbuf-size keeps every row", kinds);
}

/* ", N what" into buf when n is not zero. */
static size_t add_loss(char *buf, size_t size, size_t at, uint64_t n, const char *what)
{
	if (!n || at >= size)
		return at;
	at += (size_t)snprintf(buf + at, size - at, ", %llu %s", (unsigned long long)n, what);
	return at < size ? at : size - 1;
}

/* Only what was lost is named.  Syscall exits without their enter are not: the
 * command's own execve (and, attached, the calls threads were in) always returns so;
 * probex.drops counts them (syscall_exit_unpaired). */
static void print_summary(const struct record_result *r, uint64_t rows, unsigned long hz)
{
	const uint64_t *c = r->counters;
	uint64_t rb = 0;
	char lost[512] = "";
	size_t n = 0;

	for (int k = 0; k < REC__COUNT; k++)
		rb += c[CNT_RB_DROP0 + k];
	n = add_loss(lost, sizeof(lost), n, rb, "records dropped (ring buffer full)");
	n = add_loss(lost, sizeof(lost), n, r->sideband_lost, "mmap records lost");
	n = add_loss(lost, sizeof(lost), n, c[CNT_USTACK_ERR], "user stacks failed");
	n = add_loss(lost, sizeof(lost), n, c[CNT_KSTACK_ERR], "kernel stacks failed");
	n = add_loss(lost, sizeof(lost), n, c[CNT_STACK_TRUNC], "stacks truncated");
	n = add_loss(lost, sizeof(lost), n, c[CNT_TRACED_FULL] + c[CNT_TSTATE_FULL] + c[CNT_IOU_FULL],
		     "events lost to full maps");
	n = add_loss(lost, sizeof(lost), n, c[CNT_IOU_UNMATCHED], "io_uring completions unpaired");
	n = add_loss(lost, sizeof(lost), n, c[CNT_ARGV_CUT], "command lines cut");
	log__info("%llu events, %llu cpu samples at %lu Hz%s", (unsigned long long)rows,
		  (unsigned long long)c[CNT_SAMPLES_TRACED], hz, lost);
	print_drops(r);
	if (r->pauses)
		log__info("--lossless: the traced processes were paused %llu times, %.3f s in all, "
			  "while probex drained the ring buffer", (unsigned long long)r->pauses,
			  (double)r->paused_ns / 1e9);
}

/* Spool → trace, as the user (see cmd_record).  The spool is removed once the trace is
 * complete. */
static int finalize(const struct paths *p, const struct record_result *r,
		    const struct probex_opts *o)
{
	struct finalize_result fres = { 0 };
	struct finalize_opts fo = {
		.spool = p->spool, .output = p->output, .ksyms = r->ksyms, .progress = isatty(STDERR_FILENO),
		.force = o->force,
	};
	struct rusage ru;
	int err;

	err = finalize__run(&fo, &fres);
	if (err) {
		log__error("could not write %s; the recorded data is kept in %s (`probex recover %s` retries)",
			   p->output, p->spool, p->spool);
		return err;
	}
	print_summary(r, fres.rows, o->sample_freq);
	getrusage(RUSAGE_SELF, &ru);
	log__info("wrote %s (%llu events, finalized in %.2f s, probex peak RSS %ld MiB)", p->output,
		  (unsigned long long)fres.rows, fres.seconds, ru.ru_maxrss / 1024);
	if (!test_hooks__keep_spool())
		unlink(p->spool);
	return 0;
}

static void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
}

/* Stop requests that arrived while finishing were answered by finishing. */
static void discard_pending(const sigset_t *set)
{
	const struct timespec zero = { 0 };

	while (sigtimedwait(set, NULL, &zero) > 0)
		;
}

static int view(const char *file, const struct probex_opts *o, const struct priv_target *priv,
		bool after_recording)
{
	struct viewer_opts vo = { .bind = o->bind, .port = o->port, .no_token = o->no_token,
				  .base = o->base_file, .port_fallback = after_recording };
	int err;

	/* The viewer never needs root: become the invoking user before touching the file. */
	err = priv__drop(priv);
	if (err) {
		log__error("not starting the viewer: cannot drop privileges to uid %u: %s", priv->uid,
			   strerror(-err));
		return 1;
	}
	return viewer__main(file, &vo);
}

int cmd_view(const struct probex_opts *o)
{
	struct priv_target priv;

	if (priv__resolve(&priv))
		return 1;
	return view(o->view_file, o, &priv, false);
}

int cmd_record(const struct probex_opts *o)
{
	struct record_opts ro = {
		.cmd = o->cmd,
		.cmd_argc = o->cmd_argc,
		.sample_freq = o->sample_freq,
		.stacks = o->stacks,
		.stack_interval_ns = (uint64_t)o->stack_interval_us * 1000,
		.ustack_copy_bytes = o->call_graph == CG_FP ? 0 : (uint32_t)o->stack_copy_kib * 1024,
		.ringbuf_bytes = o->ringbuf_kib * 1024,
		.lossless = o->lossless,
		.sys_flags = o->sys_flags,
		.offcpu_min_ns = (uint64_t)o->offcpu_min_us * 1000,
		.pids = o->pids,
		.npids = o->npids,
		.all_cpus = o->all_cpus,
		.duration_ns = o->duration_s * 1000000000ull,
		.max_spool_bytes = o->max_size,
		.ring_bytes = o->ring,
	};
	static struct uprobe_set probes;
	struct record_result res;
	struct priv_target priv;
	sigset_t stops, caller;
	struct paths p;
	int err;

	if (priv__resolve(&priv))
		return 1;
	/* What the traced command must start with, before probex changes any of it. */
	child__save_caller();
	if (!o->no_cache)
		args__symcache(&priv);
	/* A probe that does not resolve is a usage error: nothing runs, no file. */
	if (o->nprobes && uprobes__parse(&probes, o->probes, o->nprobes, o->pids, o->npids))
		return EXIT_USAGE;
	ro.uprobes = o->nprobes ? &probes : NULL;
	err = check_as(&ro, &p, o->output, &priv);
	if (err)
		return err;
	ro.spool_path = p.spool;
	/* Stop requests stay blocked from the start of recording to the end of the trace: a
	 * Ctrl-C after the command ended is answered by finishing the file, not by losing it. */
	stop_signals(&stops);
	pthread_sigmask(SIG_BLOCK, &stops, &caller);
	ro.child_mask = &caller;
	err = record__run(&ro, &priv, &res);
	/* The probes are detached and the tree has ended: nothing left needs root.  The
	 * finalization parses the traced programs' ELF and DWARF and writes the user's
	 * path, so it runs as the user, for good. */
	if (!err && priv__drop(&priv)) {
		log__error("cannot drop privileges to uid %u; the recorded data is kept in %s", priv.uid,
			   p.spool);
		err = -EPERM;
	}
	if (!err)
		err = finalize(&p, &res, o);
	ksyms__free(res.ksyms);
	discard_pending(&stops);
	pthread_sigmask(SIG_SETMASK, &caller, NULL);
	if (err)
		return res.status > 1 ? res.status : 1;
	if (o->no_viewer)
		return res.status;
	/* The command's status, whatever became of the viewer (it said why). */
	view(p.output, o, &priv, true);
	return res.status;
}
