/* Endpoints about processes: process_lifetimes (computed once at load) and
 * process_events (per-pid markers and CPU-sample density over a window). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/rng.h"
#include "model/cmdlines.h"
#include "model/lifetimes.h"
#include "server/api.h"

/* Additive: the process (tgid), command line, CPU time and, on a process's own row, its
 * threads and their CPU time together. */
static void process_json(struct json *j, const struct model *m, const struct lifetime *l,
			 const struct cmdlines *cl, const struct cpu_times *ct)
{
	int64_t p = model__pid_index(m, l->pid);
	uint32_t tgid = model__tgid_of(m, l->pid);
	const char *argv = cmdlines__get(cl, l->pid);
	bool process = tgid == l->pid;

	json__key(j, "tgid");
	json__u64(j, tgid);
	json__key(j, "argv");
	if (argv)
		json__raw(j, argv, strlen(argv));
	else
		json__null(j);
	if (p < 0 || !ct->thread_ns)
		return;
	json__key(j, "cpu_ns");
	if (ct->known)
		json__u64(j, process ? ct->process_ns[p] : ct->thread_ns[p]);
	else
		json__null(j);
	if (!process)
		return;
	json__key(j, "thread_cpu_ns");
	if (ct->known)
		json__u64(j, ct->thread_ns[p]);
	else
		json__null(j);
	json__key(j, "threads");
	json__u64(j, ct->threads[p]);
}

static void lifetime_json(struct json *j, const struct model *m, const struct lifetime *l,
			  const struct cmdlines *cl, const struct cpu_times *ct)
{
	const char *last;
	uint32_t tgid;

	json__obj_begin(j);
	json__key(j, "pid");
	json__u64(j, l->pid);
	json__key(j, "process_name");
	if (l->name)
		json__str(j, l->name);
	else
		json__null(j);
	/* Additive: the name after an exec (process_name keeps the first, so a forked
	 * shell that ran gzip shows as "sh") and the process the thread belongs to. */
	if (model__name_info(m, l->pid, &last, &tgid)) {
		json__key(j, "last_process_name");
		json__str(j, last);
	}
	process_json(j, m, l, cl, ct);
	json__key(j, "parent_pid");
	if (l->forked)
		json__u64(j, l->parent);
	else
		json__null(j);
	json__key(j, "start_ns");
	json__u64(j, l->start);
	json__key(j, "end_ns");
	json__u64(j, l->end);
	json__key(j, "exit");
	if (l->exited)
		json__i64(j, l->exit);
	else
		json__null(j);
	json__key(j, "was_forked");
	json__bool(j, l->forked);
	json__obj_end(j);
}

int api__lifetimes_json(const struct model *m, const struct cmdlines *cl, char **json,
			size_t *len, char **error)
{
	struct cpu_times ct;
	struct lifetime *lt;
	struct json j;
	int err;

	*json = NULL;
	err = model__lifetimes(m, &lt, error);
	if (err || !lt)
		return err;
	if ((err = model__cpu_times(m, &ct))) {
		free(lt);
		return err;
	}
	json__init(&j);
	json__obj_begin(&j);
	json__key(&j, "processes");
	json__arr_begin(&j);
	for (uint32_t i = 0; i < m->npids; i++)
		lifetime_json(&j, m, &lt[i], cl, &ct);
	json__arr_end(&j);
	json__obj_end(&j);
	free(lt);
	cpu_times__free(&ct);
	*json = json__steal(&j, len);
	return *json ? 0 : -ENOMEM;
}

int ep_process_lifetimes(struct request *rq)
{
	if (rq->st->lifetimes_error)
		return api__fail(rq, 500, "query failed: %s", rq->st->lifetimes_error);
	json__raw(&rq->out, rq->st->lifetimes_json, rq->st->lifetimes_len);
	return 200;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* k distinct positions of [0, n), uniformly chosen and fixed by seed (Floyd's algorithm:
 * O(k) work however large n is), ascending: as uniform as the 0.1 viewer's sample, not
 * its exact pick (which depends on its hash function and row batches). */
static int sample_positions(uint64_t n, uint64_t k, uint64_t seed, uint64_t *out)
{
	struct hmap seen = { 0 };
	struct rng rng = { seed };
	uint64_t got = 0;
	uint32_t dummy;

	for (uint64_t j = n - k; j < n; j++) {
		uint64_t t = rng__below(&rng, j + 1);

		if (hmap__get(&seen, t, &dummy))
			t = j;
		if (hmap__put(&seen, t, 0)) {
			hmap__free(&seen);
			return -ENOMEM;
		}
		out[got++] = t;
	}
	hmap__free(&seen);
	qsort(out, k, sizeof(*out), cmp_u64);
	return 0;
}

/* Events in range per pid before sampling, so that a client knows which lanes are
 * sampled (an additive field: the 0.1 viewer API sends only the sampled markers). */
static void total_events_by_pid(const struct model *m, uint64_t start, uint64_t end,
				struct json *j)
{
	json__key(j, "total_events_by_pid");
	json__obj_begin(j);
	for (uint32_t p = 0; p < m->npids; p++) {
		uint64_t lo, hi;
		char key[16];

		model__pid_window(m, p, start, end, &lo, &hi);
		if (hi == lo)
			continue;
		snprintf(key, sizeof(key), "%u", m->pids[p]);
		json__key(j, key);
		json__u64(j, hi - lo);
	}
	json__obj_end(j);
}

/* events_by_pid: each pid's rows in the window, at most max of them, sampled evenly. */
static int events_json(const struct model *m, uint64_t start, uint64_t end, uint64_t max,
		       uint64_t *pos, struct json *j)
{
	json__key(j, "events_by_pid");
	json__obj_begin(j);
	for (uint32_t p = 0; p < m->npids; p++) {
		uint64_t lo, hi, n, k;
		char key[16];

		model__pid_window(m, p, start, end, &lo, &hi);
		n = hi - lo;
		if (!n)
			continue;
		k = n < max ? n : max;
		if (n > max) {
			uint64_t seed = rng__mix(rng__mix(start ^ rng__mix(end)) ^ (max * 31 + m->pids[p]));

			if (sample_positions(n, max, seed, pos))
				return -ENOMEM;
		} else {
			for (uint64_t i = 0; i < n; i++)
				pos[i] = i;
		}
		snprintf(key, sizeof(key), "%u", m->pids[p]);
		json__key(j, key);
		json__arr_begin(j);
		for (uint64_t i = 0; i < k; i++) {
			uint64_t r = lo + pos[i];

			json__obj_begin(j);
			json__key(j, "ts_ns");
			json__u64(j, model__ts(m, r));
			json__key(j, "event_type");
			json__str(j, m->type_names[model__type(m, r)]);
			json__obj_end(j);
		}
		json__arr_end(j);
	}
	json__obj_end(j);
	return 0;
}

/* cpu_sample_counts_by_pid: each pid's CPU samples in nb buckets of size ns. */
static void cpu_density_json(const struct model *m, uint64_t start, uint64_t end, uint64_t nb,
			     uint64_t size, uint16_t *counts, struct json *j)
{
	int cpu = m->code_of[EV_CPU_SAMPLE];

	json__key(j, "cpu_sample_counts_by_pid");
	json__obj_begin(j);
	for (uint32_t p = 0; cpu >= 0 && p < m->npids; p++) {
		uint64_t lo, hi, b = 0;
		char key[16];

		/* Only this pid's CPU samples, from the by-type index. */
		model__type_window(m, (unsigned int)cpu, p, start, end, &lo, &hi);
		if (lo == hi)
			continue;
		memset(counts, 0, nb * sizeof(*counts));
		for (uint64_t i = lo; i < hi; i++) {
			uint64_t t = model__ts(m, model__by_type(m, i));

			/* In time order: advance the bucket instead of dividing ((b + 1) * size
			 * stays within the range, so it cannot overflow). */
			while (b + 1 < nb && t - start >= (b + 1) * size)
				b++;
			if (counts[b] < UINT16_MAX)
				counts[b]++;
		}
		snprintf(key, sizeof(key), "%u", m->pids[p]);
		json__key(j, key);
		json__arr_begin(j);
		for (uint64_t i = 0; i < nb; i++)
			json__u64(j, counts[i]);
		json__arr_end(j);
	}
	json__obj_end(j);
}

int ep_process_events(struct request *rq)
{
	const struct model *m = &rq->st->m;
	uint64_t start, end, max, range, nb, size, *pos = NULL;
	uint16_t *counts = NULL;
	struct json *j = &rq->out;
	double expected;
	int status = 200;

	if (params__range(&rq->p, &start, &end) ||
	    params__count(&rq->p, "max_events_per_pid", true, 100000, 0, &max))
		return api__bad_param(rq);
	/* About one expected CPU sample per bucket, at most 2000 buckets (as in the 0.1 viewer API). */
	range = end - start ? end - start : 1;
	expected = (double)m->sample_freq_hz * ((double)range / 1e9);
	nb = (uint64_t)floor(expected / 1.0);
	nb = nb < 1 ? 1 : nb > 2000 ? 2000 : nb;
	size = range / nb + (range % nb != 0);
	size = size ? size : 1;
	pos = malloc(max * sizeof(*pos));
	counts = malloc(nb * sizeof(*counts));
	if (!pos || !counts) {
		status = api__fail(rq, 500, "out of memory");
		goto cleanup;
	}
	json__obj_begin(j);
	if (events_json(m, start, end, max, pos, j)) {
		status = api__fail(rq, 500, "out of memory");
		goto cleanup;
	}
	total_events_by_pid(m, start, end, j);
	cpu_density_json(m, start, end, nb, size, counts, j);
	json__key(j, "cpu_sample_bucket_count");
	json__u64(j, nb);
	json__obj_end(j);
cleanup:
	free(pos);
	free(counts);
	return status;
}
