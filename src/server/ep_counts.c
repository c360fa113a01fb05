/* Endpoints that count rows: summary (computed once at load), histogram,
 * event_type_counts and pid_event_type_counts (the model's counts, model/counts.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/counts.h"
#include "server/api.h"
#include "server/ep_exact.h"

char *api__summary_json(const struct model *m, const struct exact_counts *x, const uint32_t *tgids,
			uint32_t ntgids, size_t *len)
{
	struct json j;

	json__init(&j);
	json__obj_begin(&j);
	json__key(&j, "total_events");
	json__u64(&j, m->n);
	json__key(&j, "event_types");
	json__arr_begin(&j);
	for (unsigned int i = 0; i < m->ntypes; i++)
		json__str(&j, m->type_names[m->by_name[i]]);
	json__arr_end(&j);
	json__key(&j, "unique_pids");
	json__arr_begin(&j);
	for (uint32_t i = 0; i < m->npids; i++)
		json__u64(&j, m->pids[i]);
	json__arr_end(&j);
	/* Additive: the processes (tgid) the threads belong to. */
	json__key(&j, "unique_tgids");
	json__arr_begin(&j);
	for (uint32_t i = 0; i < ntgids; i++)
		json__u64(&j, tgids[i]);
	json__arr_end(&j);
	/* An empty trace reports 0..0, as in the 0.1 viewer API. */
	json__key(&j, "min_ts_ns");
	json__u64(&j, m->min_ts);
	json__key(&j, "max_ts_ns");
	json__u64(&j, m->max_ts);
	json__key(&j, "cpu_sample_frequency_hz");
	json__u64(&j, m->sample_freq_hz);
	exact_json__summary(&j, x);
	json__obj_end(&j);
	return json__steal(&j, len);
}

int ep_summary(struct request *rq)
{
	json__raw(&rq->out, rq->st->summary_json, rq->st->summary_len);
	return 200;
}

/* {"name": n, ...} for the non-zero counts, keys in name order. */
static void write_counts(struct json *j, const struct model *m, const uint64_t *counts)
{
	json__obj_begin(j);
	for (unsigned int i = 0; i < m->ntypes; i++) {
		unsigned int c = m->by_name[i];

		if (!counts[c])
			continue;
		json__key(j, m->type_names[c]);
		json__u64(j, counts[c]);
	}
	json__obj_end(j);
}

int ep_histogram(struct request *rq)
{
	const struct model *m = &rq->st->m;
	uint64_t start, end, nb;
	struct histogram h;
	int status = 200;

	/* 10 000 buckets bound the response; the UI asks for 80. */
	if (params__range(&rq->p, &start, &end) ||
	    params__count(&rq->p, "num_buckets", true, 10000, 0, &nb))
		return api__bad_param(rq);
	if (model__histogram(m, start, end, nb, &h)) {
		status = api__fail(rq, 500, "out of memory");
		goto cleanup;
	}
	json__obj_begin(&rq->out);
	json__key(&rq->out, "buckets");
	json__arr_begin(&rq->out);
	for (uint64_t k = 0; k < nb; k++) {
		/* The 0.1 viewer API's arithmetic: wrapping start, saturating end, clamped to
		 * end_ns (so buckets past a short range end before they start). */
		uint64_t bs = start + k * h.size, be = bs + h.size < bs ? UINT64_MAX : bs + h.size;

		json__obj_begin(&rq->out);
		json__key(&rq->out, "bucket_start_ns");
		json__u64(&rq->out, bs);
		json__key(&rq->out, "bucket_end_ns");
		json__u64(&rq->out, be < end ? be : end);
		json__key(&rq->out, "count");
		json__u64(&rq->out, h.sums[k]);
		json__key(&rq->out, "counts_by_type");
		write_counts(&rq->out, m, h.counts + k * h.nt);
		json__obj_end(&rq->out);
	}
	json__arr_end(&rq->out);
	json__key(&rq->out, "total_in_range");
	json__u64(&rq->out, h.total);
	json__obj_end(&rq->out);
cleanup:
	histogram__free(&h);
	return status;
}

static int type_counts(struct request *rq, bool by_pid)
{
	const struct model *m = &rq->st->m;
	uint64_t counts[TRACE_MAX_TYPES];
	struct window w = { .start = 0, .end = UINT64_MAX };
	bool has_start, has_end;
	int status;

	if (by_pid && (status = api__who(rq, "pid", "tgid", true, &w)))
		return status;
	if (params__u64(&rq->p, "start_ns", false, UINT64_MAX, &w.start, &has_start) ||
	    params__u64(&rq->p, "end_ns", false, UINT64_MAX, &w.end, &has_end))
		return api__bad_param(rq);
	if (has_start && has_end && w.end < w.start) {
		rq->error_param = "end_ns";
		return api__fail(rq, 400, "parameter 'end_ns' must be >= start_ns");
	}
	model__type_counts(m, &w, counts);
	json__obj_begin(&rq->out);
	json__key(&rq->out, "counts");
	write_counts(&rq->out, m, counts);
	exact_json__type_counts(&rq->out, &rq->st->exact, m, &w, counts);
	json__obj_end(&rq->out);
	return 200;
}

int ep_event_type_counts(struct request *rq)
{
	return type_counts(rq, false);
}

int ep_pid_event_type_counts(struct request *rq)
{
	return type_counts(rq, true);
}
