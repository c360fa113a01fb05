/* The recording session: arm the kernel side, run the command tree, drain it into the
 * spool, detach.
 *
 * Threads: the main thread controls processes (signalfd for SIGCHLD and stop requests);
 * a consumer thread (consumer.c) drains the ring buffer into the spool and does nothing
 * else. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/strbuf.h"
#include "common/test_hooks.h"
#include "record/attach.h"
#include "record/procinfo.h"
#include "record/child.h"
#include "record/guardian.h"
#include "record/lossless.h"
#include "record/probes.h"
#include "record/progs.h"
#include "record/python.h"
#include "record/record.h"
#include "record/sbfilter.h"
#include "record/session.h"
#include "record/session_info.h"
#include "record/tree.h"
#include "record/unwload.h"
#include "record/uprobes.h"
#include "spool/spool.h"
#include "trace/schema.h"

#define STOP_GRACE_NS (2ull * 1000000000ull)

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int record__check(const struct record_opts *o)
{
	unsigned long max_rate;
	FILE *f;
	int err;

	if (o->npids)
		return attach__check(o->pids, o->npids) ? 1 : 0;
	err = o->cmd_argc ? child__find_command(o->cmd[0]) : 0;
	if (err) {
		log__error("%s: %s", o->cmd[0], err == -ENOENT ? "command not found" : strerror(-err));
		return 127;
	}
	f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	if (f && fscanf(f, "%lu", &max_rate) == 1 && o->sample_freq > max_rate) {
		fclose(f);
		log__error("--sample-freq %lu exceeds kernel.perf_event_max_sample_rate (%lu)",
			   o->sample_freq, max_rate);
		return 2;
	}
	if (f)
		fclose(f);
	return 0;
}

/* Run the command tree to its end (or until stopped); returns 0 or a fatal -errno. */
static int run_tree(struct session *s, struct tree *t, int sfd)
{
	struct pollfd pfd[2] = { { .fd = sfd, .events = POLLIN }, { .fd = s->wake_fd, .events = POLLIN } };
	const struct record_opts *o = s->opts;
	uint64_t end_ns = o->duration_ns ? now_ns(CLOCK_MONOTONIC) + o->duration_ns : 0;
	struct signalfd_siginfo si;
	bool full_told = false, err_told = false;
	int err = 0;

	for (;;) {
		uint64_t now;
		int wait_ms = t->stop_stage ? 100 : 1000;

		tree__reap(t);
		if (t->empty)
			return err;
		/* Stopping: a frozen tree would not see its signals. */
		if (t->stop_stage)
			lossless__release(s->lossless);
		now = now_ns(CLOCK_MONOTONIC);
		if (t->stop_stage && now >= t->kill_deadline_ns)
			tree__stop(t, s->probes, now, STOP_GRACE_NS);
		/* --duration: the same stop as a Ctrl-C at that moment. */
		if (end_ns && !t->stop_stage && now >= end_ns) {
			log__info("--duration %llu s reached: stopping the traced processes",
				  (unsigned long long)(o->duration_ns / 1000000000ull));
			tree__stop(t, s->probes, now, STOP_GRACE_NS);
		} else if (end_ns && !t->stop_stage && (end_ns - now) / 1000000 < (uint64_t)wait_ms) {
			wait_ms = (int)((end_ns - now) / 1000000) + 1;
		}
		if (poll(pfd, 2, wait_ms) < 0 && errno != EINTR)
			return -errno;
		if (pfd[1].revents & POLLIN) {
			eventfd_t v;

			eventfd_read(s->wake_fd, &v);
			err = atomic_load(&s->consumer_err);
			if (err && !err_told) {
				/* A full disk is no reason to end the user's work: the recording
				 * ends there, the tree runs on (never paused again). */
				err_told = true;
				log__error("cannot write the spool %s: %s; recording stopped, the traced "
					   "processes run on to their end", o->spool_path, strerror(-err));
				lossless__release(s->lossless);
			} else if (!err && atomic_load(&s->full) && !full_told) {
				/* As perf record --max-size: the session ends, the workload is
				 * stopped, everything recorded so far becomes the trace. */
				full_told = true;
				log__info("--max-size reached (%llu MiB recorded): stopping the traced "
					  "processes; the trace keeps everything recorded until now",
					  (unsigned long long)(o->max_spool_bytes >> 20));
				if (!t->stop_stage)
					tree__stop(t, s->probes, now_ns(CLOCK_MONOTONIC), STOP_GRACE_NS);
			}
		}
		while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGCHLD)
				continue;
			if (!t->stop_stage)
				log__info("received %s", strsignal((int)si.ssi_signo));
			tree__stop(t, s->probes, now_ns(CLOCK_MONOTONIC), STOP_GRACE_NS);
		}
	}
}

/* Signals are taken through a signalfd from here on, so a Ctrl-C at any moment is
 * handled in order instead of killing probex half-way. */
static void block_signals(sigset_t *mask, sigset_t *orig)
{
	sigemptyset(mask);
	sigaddset(mask, SIGCHLD);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGHUP);
	sigaddset(mask, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, mask, orig);
}

/* No command of ours: running processes (--pid) or the machine (-a alone). */
static bool attached(const struct record_opts *o)
{
	return o->npids || !o->cmd_argc;
}

static void *guardian_main(void *arg)
{
	struct session *s = arg;

	s->guard_fd = guardian__start();
	return NULL;
}

/* Spool, probes, kernel symbols (while still root), the guardian, the signal and wake-up
 * fds. */
static int session__arm(struct session *s, const sigset_t *mask)
{
	const struct record_opts *o = s->opts;
	struct probes_opts po = {
		.stacks = o->stacks,
		.stack_interval_ns = o->stack_interval_ns,
		.ustack_copy_bytes = o->ustack_copy_bytes,
		.sample_freq = o->sample_freq,
		.ringbuf_bytes = o->ringbuf_bytes,
		.sys_flags = o->sys_flags,
		.offcpu_min_ns = o->offcpu_min_ns,
		.trace_all = o->all_cpus,
		.uprobes = o->uprobes,
		.on_record = session__on_record,
		.on_sideband = session__on_sideband,
		.ctx = s,
	};
	int err, fds[GUARDIAN_MAX_FDS];
	pthread_t guard_thread;
	struct priv_fs fs;
	bool guard;
	uint64_t t0;

	err = priv__fs_enter(s->priv, &fs);
	if (!err) {
		err = spool_writer__open(&s->spool, o->spool_path);
		priv__fs_leave(&fs);
	}
	if (err) {
		log__error("cannot create %s: %s", o->spool_path, strerror(-err));
		return err;
	}
	s->sbf = sbfilter__new();
	if (!s->sbf)
		return -ENOMEM;
	if (o->lossless && (err = lossless__open(&s->lossless)))
		return err;
	if (o->lossless)
		po.ringbuf_bytes = lossless__ring_bytes(po.ringbuf_bytes, po.ustack_copy_bytes);
	if (o->all_cpus)
		sbfilter__trace_all(s->sbf);
	/* The guardian forks beside the BPF load, which is mostly the kernel's work
	 * (attached processes are not ours to stop). */
	guard = !attached(o) && !pthread_create(&guard_thread, NULL, guardian_main, s);
	t0 = now_ns(CLOCK_MONOTONIC);
	err = probes__open(&s->probes, &po);
	if (guard)
		pthread_join(guard_thread, NULL);
	if (err)
		return err;
	log__debug("probes attached in %.3f s", (now_ns(CLOCK_MONOTONIC) - t0) / 1e9);
	if ((err = unwload__start(&s->unw, s->probes)))
		return err;
	/* PROBEX_PYTHON_FRAMES=0: native stacks only (to measure what Python frames cost). */
	if (!(getenv("PROBEX_PYTHON_FRAMES") && !strcmp(getenv("PROBEX_PYTHON_FRAMES"), "0")) &&
	    (err = pyrec__new(&s->py, probes__map_fd(s->probes, MAP_pyprocs), s->spool)))
		return err;
	if (s->lossless) {
		uint64_t bytes;
		int rb = probes__ring(s->probes, &bytes);

		if ((err = lossless__watch(s->lossless, rb, bytes)))
			return err;
	}
	probes__prog_syms(s->probes, &s->info.extra, &s->info.nextra);
	s->info.ksyms = test_hooks__kallsyms() ? NULL : probes__ksyms(s->probes);
	if (!s->info.ksyms) {
		log__debug("kernel symbol lookup program unavailable (%s): reading /proc/kallsyms",
			   strerror(errno));
		err = session_info__load_ksyms(&s->info);
		if (err)
			return err;
	}
	s->sfd = signalfd(-1, mask, SFD_NONBLOCK | SFD_CLOEXEC);
	s->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->sfd < 0 || s->wake_fd < 0)
		return -errno;
	if (attached(o))
		return 0;
	if (!guard)
		s->guard_fd = -EAGAIN;
	if (s->guard_fd >= 0)
		err = guardian__arm(s->guard_fd, fds, probes__guard_fds(s->probes, fds, GUARDIAN_MAX_FDS),
				    lossless__freeze_fd(s->lossless));
	if (s->guard_fd < 0 || err) {
		log__warn("no guardian process (%s): if probex is killed, the traced processes keep running",
			  strerror(s->guard_fd < 0 ? -s->guard_fd : -err));
		guardian__release(s->guard_fd);
		s->guard_fd = -1;
	}
	return 0;
}

/* Wait for the command's process (forked by record__run) to stop, start the consumer,
 * trace it, resume it.  Returns 0 when the command runs, a positive exit status when it
 * could not (exec failed), else -errno. */
static int session__start_command(struct session *s, struct child *child, const struct priv_target *priv,
				  struct record_result *res)
{
	const struct record_opts *o = s->opts;
	struct signalfd_siginfo si;
	int err, rc;

	err = child__wait_stopped(child, priv);
	if (!err && s->lossless)
		err = lossless__add(s->lossless, child->pid);
	if (err)
		return err;
	if (test_hooks__die_after_spawn())
		raise(SIGKILL);
	session_info__start(&s->info, o, child->pid, probes__missing(s->probes));
	procinfo__add(&s->info.text, &child->pid, 1, false, o->sys_flags);
	/* The spool has one writer at a time: this thread until the consumer starts.
	 * Nothing is traced before probes__trace_pid, so the ring buffer is empty. */
	err = spool_writer__append(s->spool, SPOOL_SESSION, s->info.text.s, (uint32_t)s->info.text.len);
	if (!err)
		err = sbfilter__add_pid(s->sbf, (uint32_t)child->pid);
	if (!err && o->ring_bytes)
		err = spool_writer__set_ring(s->spool, o->ring_bytes);
	if (!err) {
		err = -pthread_create(&s->consumer, NULL, session__consumer_main, s);
		s->consumer_started = !err;
	}
	if (!err)
		err = probes__trace_pid(s->probes, (uint32_t)child->pid);
	if (err) {
		log__error("cannot arm tracing for pid %d: %s", child->pid, strerror(-err));
		child__kill(child);
		return err;
	}
	if (test_hooks__startup_delay_ms() > 0)
		usleep((useconds_t)test_hooks__startup_delay_ms() * 1000);
	/* A stop request during set-up: the command never runs. */
	if (read(s->sfd, &si, sizeof(si)) == sizeof(si) && si.ssi_signo != SIGCHLD) {
		log__info("received %s before the command started", strsignal((int)si.ssi_signo));
		child__kill(child);
		res->status = 128 + (int)si.ssi_signo;
		return -EINTR;
	}
	rc = child__resume(child, o->cmd[0]);
	if (rc < 0)
		child__kill(child);
	return rc;
}

/* Attach to the running processes: their mappings go into the spool first (the side-band
 * only reports later ones), then their threads are traced.  A process gone before it is
 * traced fails the whole recording. */
static int session__attach(struct session *s)
{
	const struct record_opts *o = s->opts;
	uint64_t ts = now_ns(CLOCK_MONOTONIC);
	int err;

	session_info__start(&s->info, o, o->npids ? o->pids[0] : 0, probes__missing(s->probes));
	procinfo__add(&s->info.text, o->pids, o->npids, true, o->sys_flags);
	err = spool_writer__append(s->spool, SPOOL_SESSION, s->info.text.s, (uint32_t)s->info.text.len);
	for (int i = 0; !err && i < o->npids; i++)
		err = sbfilter__add_pid(s->sbf, (uint32_t)o->pids[i]);
	for (int i = 0; !err && i < o->npids; i++)
		err = attach__write_maps(s->spool, s->unw, (uint32_t)o->pids[i], ts);
	for (int i = 0; !err && s->py && i < o->npids; i++)
		err = pyrec__check(s->py, (uint32_t)o->pids[i], 0) < 0 ? -ENOMEM : 0;
	/* After the maps: the part before the ring is never punched out. */
	if (!err && o->ring_bytes)
		err = spool_writer__set_ring(s->spool, o->ring_bytes);
	if (!err) {
		err = -pthread_create(&s->consumer, NULL, session__consumer_main, s);
		s->consumer_started = !err;
	}
	for (int i = 0; !err && i < o->npids; i++) {
		err = probes__attach_pid(s->probes, (uint32_t)o->pids[i]);
		if (err == -ESRCH)
			log__error("--pid %d: the process exited while probex attached to it", o->pids[i]);
		else if (err)
			log__error("cannot attach to pid %d: %s", o->pids[i], strerror(-err));
	}
	if (!err)
		log__info(o->npids ? "attached to %d process(es); Ctrl-C to stop"
				   : "tracing the whole system; Ctrl-C to stop", o->npids);
	return err;
}

/* Until a stop request, --duration, --max-size, or (--pid) until every traced process
 * has exited.  Attached processes are never signalled: each of these only detaches. */
static int run_attached(struct session *s)
{
	struct pollfd pfd[2] = { { .fd = s->sfd, .events = POLLIN }, { .fd = s->wake_fd, .events = POLLIN } };
	const struct record_opts *o = s->opts;
	uint64_t end_ns = o->duration_ns ? now_ns(CLOCK_MONOTONIC) + o->duration_ns : 0;
	struct signalfd_siginfo si;
	uint32_t one;

	for (;;) {
		if (o->npids && probes__traced_pids(s->probes, &one, 1) == 0)
			return 0;
		if (end_ns && now_ns(CLOCK_MONOTONIC) >= end_ns) {
			log__info("--duration %llu s reached: detaching",
				  (unsigned long long)(o->duration_ns / 1000000000ull));
			return 0;
		}
		if (poll(pfd, 2, 100) < 0 && errno != EINTR)
			return -errno;
		if (pfd[1].revents & POLLIN) {
			int err = atomic_load(&s->consumer_err);

			if (!err && atomic_load(&s->full)) {
				log__info("--max-size reached (%llu MiB recorded): detaching; the trace "
					  "keeps everything recorded until now",
					  (unsigned long long)(o->max_spool_bytes >> 20));
				return 0;
			}
			log__error("cannot write the spool %s: %s", o->spool_path, strerror(-err));
			return err;
		}
		while (read(s->sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGCHLD)
				continue;
			log__info("received %s: detaching", strsignal((int)si.ssi_signo));
			return 0;
		}
	}
}

/* probex.exact, read while the maps are there; left out when they cannot be read. */
static void session__exact(struct session *s, struct record_result *res)
{
	struct strbuf *t = &s->info.text;
	size_t len = t->len;
	int err;

	strbuf__addf(t, "%s\t", META_EXACT);
	err = probes__stats(s->probes, t, res->exact);
	strbuf__add(t, "\n", 1);
	if (err && !t->err) {
		log__warn("cannot read the exact counts: %s", strerror(-err));
		t->len = len;
		t->s[len] = 0;
	}
}

/* The tree has ended: drain the ring buffer, write the end facts, close the spool and
 * detach.  Returns the first error of the recording. */
static int session__drain(struct session *s, int run_err, struct record_result *res)
{
	struct strbuf drops = { 0 };
	uint32_t one;
	int err = 0;

	/* Before the consumer's last read: the entries of u: calls still open in threads that
	 * live on (ended threads sent theirs).  It detaches the probes first, waiting on the
	 * kernel, so only when a traced process lives on. */
	if (s->opts->uprobes && (s->opts->all_cpus || probes__traced_pids(s->probes, &one, 1) > 0))
		err = uprobes__drain(s->opts->uprobes);
	if (err)
		log__warn("--probe: cannot send the open u: calls of live threads: %s", strerror(-err));

	atomic_store(&s->stop_consumer, true);
	probes__wake(s->probes);
	pthread_join(s->consumer, NULL);
	s->consumer_started = false;
	if (!run_err)
		run_err = atomic_load(&s->consumer_err);
	probes__counters(s->probes, res->counters);
	res->sideband_lost = probes__sideband_lost(s->probes);
	log__debug("side-band: %llu records of untraced processes left out",
		   (unsigned long long)sbfilter__dropped(s->sbf));
	lossless__stats(s->lossless, &res->pauses, &res->paused_ns);
	uprobes__drops(s->opts->uprobes, &drops);
	pyrec__drops(s->py, &drops);
	session_info__end(&s->info, res->status, res->counters, res->sideband_lost, drops.s);
	strbuf__free(&drops);
	unwload__end(s->unw, &s->info.text);
	s->unw = NULL;
	session__exact(s, res);
	if (s->lossless)
		strbuf__addf(&s->info.text, "%s\t{\"pauses\":%llu,\"paused_ns\":%llu}\n", META_LOSSLESS,
			     (unsigned long long)res->pauses, (unsigned long long)res->paused_ns);
	if (!run_err)
		run_err = spool_writer__append(s->spool, SPOOL_END, s->info.text.s, (uint32_t)s->info.text.len);
	err = spool_writer__close(s->spool);
	s->spool = NULL;
	/* Detach now, not after the (long) finalization: nothing more to record, and the
	 * hooks cost every process on the machine.  Detaching waits ~7 ms on the kernel
	 * (RCU grace periods), so it runs beside the finalization. */
	guardian__release(s->guard_fd);
	s->guard_fd = -1;
	probes__close_async(s->probes);
	s->probes = NULL;
	return err ? err : run_err;
}

/* Remove the spool we created, as its owner (never as root in the user's directory). */
static void session__unlink_spool(const struct session *s)
{
	struct priv_fs fs;

	if (priv__fs_enter(s->priv, &fs))
		return;
	unlink(s->opts->spool_path);
	priv__fs_leave(&fs);
}

static void session__cleanup(struct session *s, const sigset_t *orig)
{
	struct signalfd_siginfo si;

	guardian__release(s->guard_fd);
	if (s->consumer_started) {
		atomic_store(&s->stop_consumer, true);
		probes__wake(s->probes);
		pthread_join(s->consumer, NULL);
	}
	if (s->spool) {
		spool_writer__close(s->spool);
		session__unlink_spool(s);
	}
	probes__close(s->probes);
	lossless__close(s->lossless);
	unwload__stop(s->unw, NULL);
	sbfilter__free(s->sbf);
	free(s->pack);
	pyrec__free(s->py);
	if (s->wake_fd >= 0)
		close(s->wake_fd);
	/* Stop requests that arrived while draining were answered by keeping the data; do
	 * not let them kill us now that they would be unblocked. */
	if (s->sfd >= 0) {
		while (read(s->sfd, &si, sizeof(si)) == sizeof(si))
			;
		close(s->sfd);
	}
	pthread_sigmask(SIG_SETMASK, orig, NULL);
}

/* Armed and running: from here on the recorder needs its fds, and only two privileges:
 * CAP_BPF (map lookups on kernels before 6.5 check it) and CAP_KILL (set-uid programs in
 * the tree).  Everything else it does as the user; root is not regained. */
static void session__shed_root(const struct priv_target *priv)
{
	static const int keep[] = { CAP_BPF, CAP_KILL };
	int err = priv__drop_keep_caps(priv, keep, 2);

	if (err)
		log__warn("cannot give up root while recording: %s", strerror(-err));
}

int record__run(const struct record_opts *o, const struct priv_target *priv, struct record_result *res)
{
	struct session s = { .opts = o, .priv = priv, .wake_fd = -1, .sfd = -1, .guard_fd = -1 };
	struct child child = { .pid = -1, .report_fd = -1 };
	struct tree tree;
	sigset_t mask, orig;
	uint64_t t0;
	int err, rc, run_err;

	memset(res, 0, sizeof(*res));
	res->status = 1;
	block_signals(&mask, &orig);
	/* The command's process is forked first, beside the BPF load and while probex is
	 * small: a fork copies the page tables, and the command's exec tears them down. */
	if (!attached(o)) {
		err = child__spawn(&child, o->cmd, priv, o->child_mask ? o->child_mask : &orig);
		if (err)
			goto cleanup;
	}
	err = session__arm(&s, &mask);
	if (!err && attached(o)) {
		err = session__attach(&s);
		if (err)
			goto cleanup;
		res->status = 0;
		run_err = run_attached(&s);
		err = session__drain(&s, run_err, res);
		if (err)
			unlink(o->spool_path);
		goto cleanup;
	}
	if (!err)
		err = tree__init(&tree);
	if (err) {
		child__kill(&child);	/* still stopped (or stopping) before its exec */
		goto cleanup;
	}
	rc = session__start_command(&s, &child, priv, res);
	if (rc < 0) {
		err = rc;
		goto cleanup;
	}
	tree.root = child.pid;
	if (!rc)
		session__shed_root(priv);
	t0 = now_ns(CLOCK_MONOTONIC);
	run_err = run_tree(&s, &tree, s.sfd);
	log__debug("command tree ran %.3f s", (now_ns(CLOCK_MONOTONIC) - t0) / 1e9);
	res->status = rc > 0 ? rc : tree__exit_status(&tree);
	t0 = now_ns(CLOCK_MONOTONIC);
	err = session__drain(&s, run_err, res);
	log__debug("drained and detached in %.3f s", (now_ns(CLOCK_MONOTONIC) - t0) / 1e9);
	if (err) {
		/* What was written before the failure (a full disk) is whole: recover reads
		 * up to a cut-short item, as after a killed recorder. */
		log__error("recording failed: %s; what was recorded until then is kept in %s "
			   "(`probex recover %s` once there is room, or delete it)", strerror(-err),
			   o->spool_path, o->spool_path);
	}
cleanup:
	session__cleanup(&s, &orig);
	if (!err) {
		res->ksyms = session_info__ksyms(&s.info);
		s.info.ksyms = NULL;
	}
	session_info__free(&s.info);
	return err;
}
