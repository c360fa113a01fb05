/* The recording session: validate, arm the kernel side, run the command tree, drain,
 * finalize the trace, then hand over to the viewer.
 *
 * Threads: the main thread controls processes (signalfd for SIGCHLD and stop requests);
 * a consumer thread drains the ring buffer into the spool and does nothing else. */
#include <errno.h>
#include <fcntl.h>
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
#include "record/child.h"
#include "record/guardian.h"
#include "record/probes.h"
#include "record/record.h"
#include "record/session_info.h"
#include "record/spool.h"
#include "record/tree.h"
#include "trace/finalize.h"
#include "viewer/viewer.h"

#define STOP_GRACE_NS (2ull * 1000000000ull)

struct session {
	const struct probex_opts *opts;
	char output[PATH_MAX];
	char spool_path[PATH_MAX + 32];
	struct spool_writer *spool;
	struct probes *probes;
	pthread_t consumer;
	bool consumer_started;
	atomic_bool stop_consumer;
	atomic_int consumer_err;
	int wake_fd;			/* eventfd: the consumer failed */
	uint64_t records;		/* written by the consumer only */
};

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int on_record(void *ctx, const void *data, uint32_t size)
{
	struct session *s = ctx;

	s->records++;
	return spool_writer__append(s->spool, SPOOL_BPF, data, size);
}

static void on_sideband(void *ctx, const struct perf_event_header *ev)
{
	struct session *s = ctx;
	const uint16_t *size = (const uint16_t *)ev + 3;	/* perf_event_header.size */

	spool_writer__append(s->spool, SPOOL_PERF, ev, *size);
}

static void *consumer_main(void *arg)
{
	struct session *s = arg;
	/* Tests simulate a consumer that cannot keep up, to check that drops are counted. */
	const char *delay = getenv("PROBEX_TEST_CONSUMER_DELAY_MS");
	int n, delay_ms = delay ? atoi(delay) : 0;

	while (!atomic_load(&s->stop_consumer)) {
		if (delay_ms > 0)
			usleep(delay_ms * 1000);
		n = probes__poll(s->probes, 10);
		/* Hand what we have to the kernel every cycle: if probex is killed, the page
		 * cache still holds it for `probex recover`. */
		if (n >= 0)
			n = spool_writer__flush(s->spool);
		if (n < 0)
			goto fail;
	}
	/* Final drain: everything the kernel produced before the tree ended. */
	do {
		n = probes__poll(s->probes, 0);
		if (n < 0)
			goto fail;
	} while (n > 0);
	n = spool_writer__flush(s->spool);
	if (n < 0)
		goto fail;
	return NULL;
fail:
	atomic_store(&s->consumer_err, n);
	eventfd_write(s->wake_fd, 1);
	return NULL;
}

static int default_output(char *buf, size_t size)
{
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	return strftime(buf, size, "probex-%Y%m%d-%H%M%S.parquet", &tm) ? 0 : -ENAMETOOLONG;
}

/* Everything that can be checked before the command starts is checked here. */
static int validate(struct session *s)
{
	const struct probex_opts *o = s->opts;
	char dir[PATH_MAX], *slash;
	unsigned long max_rate;
	struct stat st;
	FILE *f;
	int err;

	err = child__find_command(o->cmd[0]);
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
	if (o->output)
		snprintf(s->output, sizeof(s->output), "%s", o->output);
	else if (default_output(s->output, sizeof(s->output)))
		return 1;
	snprintf(dir, sizeof(dir), "%s", s->output);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	else
		strcpy(dir, ".");
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK)) {
		log__error("cannot write the output %s: directory %s is not writable", s->output, dir);
		return 1;
	}
	if (stat(s->output, &st) == 0 && S_ISDIR(st.st_mode)) {
		log__error("output %s is a directory", s->output);
		return 1;
	}
	snprintf(s->spool_path, sizeof(s->spool_path), "%s.probex-spool", s->output);
	if (access(s->spool_path, F_OK) == 0) {
		log__error("%s exists: an earlier probex run was interrupted. Turn it into a trace with "
			   "`probex recover %s`, or delete it", s->spool_path, s->spool_path);
		return 1;
	}
	return 0;
}

static void print_summary(const uint64_t c[CNT__COUNT], uint64_t sb_lost, uint64_t rows)
{
	uint64_t rb = 0;

	for (int k = 0; k < REC__COUNT; k++)
		rb += c[CNT_RB_DROP0 + k];
	log__info("%llu events; dropped: %llu records (ring buffer full), %llu mmap records; "
		  "stack failures: %llu user, %llu kernel, %llu truncated; map full: %llu; unpaired: %llu; "
		  "cpu samples: %llu",
		  (unsigned long long)rows, (unsigned long long)rb, (unsigned long long)sb_lost,
		  (unsigned long long)c[CNT_USTACK_ERR], (unsigned long long)c[CNT_KSTACK_ERR],
		  (unsigned long long)c[CNT_STACK_TRUNC],
		  (unsigned long long)(c[CNT_TRACED_FULL] + c[CNT_TSTATE_FULL] + c[CNT_IOU_FULL]),
		  (unsigned long long)c[CNT_UNPAIRED_EXIT], (unsigned long long)c[CNT_SAMPLES_TRACED]);
}

/* Run the command tree to its end (or until stopped); returns 0 or a fatal -errno. */
static int run_tree(struct session *s, struct tree *t, int sfd)
{
	struct pollfd pfd[2] = { { .fd = sfd, .events = POLLIN }, { .fd = s->wake_fd, .events = POLLIN } };
	struct signalfd_siginfo si;
	int err = 0;

	for (;;) {
		tree__reap(t);
		if (t->empty)
			return err;
		if (t->stop_stage && now_ns(CLOCK_MONOTONIC) >= t->kill_deadline_ns)
			tree__stop(t, s->probes, now_ns(CLOCK_MONOTONIC), STOP_GRACE_NS);
		if (poll(pfd, 2, t->stop_stage ? 100 : 1000) < 0 && errno != EINTR)
			return -errno;
		if (pfd[1].revents & POLLIN) {
			eventfd_t v;

			eventfd_read(s->wake_fd, &v);
			err = atomic_load(&s->consumer_err);
			log__error("cannot write the spool %s: %s; stopping the traced processes",
				   s->spool_path, strerror(-err));
			tree__stop(t, s->probes, now_ns(CLOCK_MONOTONIC), STOP_GRACE_NS);
			tree__stop(t, s->probes, now_ns(CLOCK_MONOTONIC), STOP_GRACE_NS);
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

static int record_and_finalize(struct session *s, const struct priv_target *priv, int *status)
{
	const struct probex_opts *o = s->opts;
	struct probes_opts po = {
		.stacks = o->stacks,
		.stack_interval_us = o->stack_interval_us,
		.sample_freq = o->sample_freq,
		.ringbuf_bytes = o->ringbuf_kib * 1024,
		.on_record = on_record,
		.on_sideband = on_sideband,
		.ctx = s,
	};
	struct finalize_result fres = { 0 };
	struct finalize_opts fo = { 0 };
	struct session_info info = { 0 };
	sigset_t mask, orig;
	uint64_t counters[CNT__COUNT] = { 0 };
	struct child child = { .pid = -1, .report_fd = -1 };
	struct tree tree;
	struct signalfd_siginfo si;
	uint64_t sb_lost = 0, t_start;
	int sfd = -1, guard_fd = -1, err, run_err = 0, rc;

	/* Signals are taken through a signalfd from here on, so a Ctrl-C at any moment
	 * is handled in order instead of killing probex half-way. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &mask, &orig);
	err = spool_writer__open(&s->spool, s->spool_path);
	if (err) {
		log__error("cannot create %s: %s", s->spool_path, strerror(-err));
		return err;
	}
	t_start = now_ns(CLOCK_MONOTONIC);
	err = probes__open(&s->probes, &po);
	if (err)
		goto cleanup;
	log__debug("probes attached in %.3f s", (now_ns(CLOCK_MONOTONIC) - t_start) / 1e9);
	err = session_info__load_ksyms(&info);	/* while still root */
	if (err)
		goto cleanup;

	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	s->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (sfd < 0 || s->wake_fd < 0) {
		err = -errno;
		goto cleanup;
	}
	guard_fd = guardian__start(probes__traced_map_fd(s->probes));
	if (guard_fd < 0)
		log__warn("no guardian process (%s): if probex is killed, the traced processes keep running",
			  strerror(-guard_fd));
	err = tree__init(&tree);
	if (err)
		goto cleanup;
	err = child__spawn(&child, o->cmd, priv, &orig);
	if (err)
		goto cleanup;
	tree.root = child.pid;
	session_info__start(&info, o, child.pid, probes__missing(s->probes));
	/* The spool has one writer at a time: this thread until the consumer starts.
	 * Nothing is traced before probes__trace_pid, so the ring buffer is empty. */
	err = spool_writer__append(s->spool, SPOOL_SESSION, info.text.s, (uint32_t)info.text.len);
	if (!err) {
		err = -pthread_create(&s->consumer, NULL, consumer_main, s);
		s->consumer_started = !err;
	}
	if (!err)
		err = probes__trace_pid(s->probes, (uint32_t)child.pid);
	if (err) {
		log__error("cannot arm tracing for pid %d: %s", child.pid, strerror(-err));
		child__kill(&child);
		goto cleanup;
	}
	/* A stop request during set-up: the command never runs. */
	if (read(sfd, &si, sizeof(si)) == sizeof(si) && si.ssi_signo != SIGCHLD) {
		log__info("received %s before the command started", strsignal((int)si.ssi_signo));
		child__kill(&child);
		*status = 128 + (int)si.ssi_signo;
		err = -EINTR;
		goto cleanup;
	}
	rc = child__resume(&child, o->cmd[0]);
	if (rc < 0) {
		err = rc;
		child__kill(&child);
		goto cleanup;
	}
	t_start = now_ns(CLOCK_MONOTONIC);
	run_err = run_tree(s, &tree, sfd);
	log__debug("command tree ran %.3f s", (now_ns(CLOCK_MONOTONIC) - t_start) / 1e9);
	t_start = now_ns(CLOCK_MONOTONIC);
	*status = rc > 0 ? rc : tree__exit_status(&tree);

	atomic_store(&s->stop_consumer, true);
	pthread_join(s->consumer, NULL);
	s->consumer_started = false;
	if (!run_err)
		run_err = atomic_load(&s->consumer_err);
	probes__counters(s->probes, counters);
	session_info__end(&info, *status, counters, probes__sideband_lost(s->probes));
	if (!run_err)
		run_err = spool_writer__append(s->spool, SPOOL_END, info.text.s, (uint32_t)info.text.len);
	sb_lost = probes__sideband_lost(s->probes);
	err = spool_writer__close(s->spool);
	s->spool = NULL;
	if (!err)
		err = run_err;
	/* Detach before the (long) finalization: nothing more to record, and the hooks
	 * cost every process on the machine. */
	guardian__release(guard_fd);
	guard_fd = -1;
	probes__close(s->probes);
	s->probes = NULL;
	log__debug("drained and detached in %.3f s", (now_ns(CLOCK_MONOTONIC) - t_start) / 1e9);
	if (err) {
		/* The spool is incomplete in ways recover cannot fix (a write failed). */
		log__error("recording failed: %s", strerror(-err));
		unlink(s->spool_path);
		goto cleanup;
	}

	fo.spool = s->spool_path;
	fo.output = s->output;
	fo.ksyms = info.ksyms;
	fo.progress = isatty(STDERR_FILENO);
	err = finalize__run(&fo, &fres);
	if (err) {
		log__error("could not write %s; the recorded data is kept in %s (`probex recover %s` retries)",
			   s->output, s->spool_path, s->spool_path);
		goto cleanup;
	}
	err = priv__chown(priv, s->output);
	if (err)
		log__warn("cannot give %s to uid %u: %s", s->output, priv->uid, strerror(-err));
	err = 0;
	print_summary(counters, sb_lost, fres.rows);
	{
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		log__info("wrote %s (%llu events, finalized in %.2f s, probex peak RSS %ld MiB)", s->output,
			  (unsigned long long)fres.rows, fres.seconds, ru.ru_maxrss / 1024);
	}
	if (!getenv("PROBEX_KEEP_SPOOL"))
		unlink(s->spool_path);
cleanup:
	guardian__release(guard_fd);
	if (s->consumer_started) {
		atomic_store(&s->stop_consumer, true);
		pthread_join(s->consumer, NULL);
	}
	if (s->spool) {
		spool_writer__close(s->spool);
		unlink(s->spool_path);
	}
	probes__close(s->probes);
	if (s->wake_fd > 0)
		close(s->wake_fd);
	session_info__free(&info);
	/* Stop requests that arrived during finalization were answered by finishing the
	 * file; do not let them kill us now that they would be unblocked. */
	if (sfd >= 0) {
		while (read(sfd, &si, sizeof(si)) == sizeof(si))
			;
		close(sfd);
	}
	pthread_sigmask(SIG_SETMASK, &orig, NULL);
	return err;
}

int record__main(const struct probex_opts *opts, const struct priv_target *priv)
{
	struct session s = { .opts = opts, .wake_fd = -1 };
	int status = 1, err;

	err = validate(&s);
	if (err)
		return err;
	err = record_and_finalize(&s, priv, &status);
	if (err)
		return status > 1 ? status : 1;
	if (opts->no_viewer)
		return status;
	{
		struct viewer_opts vo = { .bind = opts->bind, .port = opts->port };
		int verr;

		verr = priv__drop(priv);
		if (verr) {
			log__error("not starting the viewer: cannot drop privileges: %s", strerror(-verr));
			return status ? status : 1;
		}
		verr = viewer__main(s.output, &vo);
		return status ? status : verr;
	}
}
