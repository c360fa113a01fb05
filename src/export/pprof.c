/* pprof's profile.proto (vendored from github.com/google/pprof, encoded by protobuf-c),
 * gzip-compressed as `go tool pprof`, Pyroscope and Grafana expect.  One function and one
 * location per distinct frame name; a sample per distinct stack, leaf first. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/export.h"
#include "profile.pb-c.h"
#include "trace/schema.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__ValueType ValueType;

/* Strings after the frame names (whose index is frame id + 1). */
enum { S_SAMPLES, S_COUNT, S_CPU, S_NANOSECONDS, S_EVENTS, S_KERNEL, S_OFF_CPU, S__COUNT };
static const char *const extra[S__COUNT] = { "samples", "count", "cpu", "nanoseconds", "events",
					     STACK_MARK_KERNEL, "off_cpu" };

struct pp {
	Profile prof;
	ValueType vt[3], *vtp[2];
	Function *fn;
	Function **fnp;
	Location *loc;
	Location **locp;
	Line *line;
	Line **linep;
	Sample *smp;
	Sample **smpp;
	uint64_t *ids;		/* every sample's location ids, back to back */
	int64_t *vals;
	char **strs;
};

static void pp_free(struct pp *pp)
{
	free(pp->fn); free(pp->fnp); free(pp->loc); free(pp->locp); free(pp->line);
	free(pp->linep); free(pp->smp); free(pp->smpp); free(pp->ids); free(pp->vals);
	free(pp->strs);
}

static int64_t str_extra(const struct ex_profile *p, int s)
{
	return (int64_t)p->nframes + 1 + s;
}

static void value_type(const struct ex_profile *p, ValueType *vt, int type, int unit)
{
	perftools__profiles__value_type__init(vt);
	vt->type = str_extra(p, type);
	vt->unit = str_extra(p, unit);
}

static void functions(struct pp *pp, const struct ex_profile *p)
{
	for (uint32_t i = 0; i < p->nframes; i++) {
		perftools__profiles__function__init(&pp->fn[i]);
		pp->fn[i].id = i + 1;
		pp->fn[i].name = pp->fn[i].system_name = i + 1;
		if (p->frames[i].kernel)
			pp->fn[i].filename = str_extra(p, S_KERNEL);
		pp->fnp[i] = &pp->fn[i];
		perftools__profiles__line__init(&pp->line[i]);
		pp->line[i].function_id = i + 1;
		pp->linep[i] = &pp->line[i];
		perftools__profiles__location__init(&pp->loc[i]);
		pp->loc[i].id = i + 1;
		pp->loc[i].n_line = 1;
		pp->loc[i].line = &pp->linep[i];
		pp->locp[i] = &pp->loc[i];
	}
	pp->strs[0] = "";
	for (uint32_t i = 0; i < p->nframes; i++)
		pp->strs[i + 1] = p->frames[i].name;
	for (int s = 0; s < S__COUNT; s++)
		pp->strs[p->nframes + 1 + s] = (char *)extra[s];
}

static void samples(struct pp *pp, const struct ex_profile *p, int nvals, uint64_t period)
{
	uint64_t *ids = pp->ids;

	for (uint64_t i = 0; i < p->nstacks; i++) {
		const struct ex_stack *st = &p->stacks[i];
		Sample *s = &pp->smp[i];

		perftools__profiles__sample__init(s);
		for (uint32_t k = 0; k < st->n; k++)
			ids[k] = st->frames[st->n - 1 - k] + 1;	/* leaf first */
		s->location_id = ids;
		s->n_location_id = st->n;
		ids += st->n;
		s->value = &pp->vals[i * nvals];
		s->n_value = nvals;
		s->value[0] = (int64_t)(p->by_ns ? st->events : st->weight);
		if (nvals > 1)
			s->value[1] = (int64_t)(p->by_ns ? st->weight : st->weight * period);
		pp->smpp[i] = s;
	}
}

static int build(struct pp *pp, const struct ex_profile *p)
{
	bool cpu = !strcmp(p->event_type, "cpu_sample");
	uint64_t period = p->sample_freq_hz ? 1000000000ull / p->sample_freq_hz : 0, nids = 0;
	int nvals = cpu || p->by_ns ? 2 : 1;

	for (uint64_t i = 0; i < p->nstacks; i++)
		nids += p->stacks[i].n;
	pp->fn = calloc(p->nframes + 1, sizeof(*pp->fn));
	pp->fnp = calloc(p->nframes + 1, sizeof(*pp->fnp));
	pp->loc = calloc(p->nframes + 1, sizeof(*pp->loc));
	pp->locp = calloc(p->nframes + 1, sizeof(*pp->locp));
	pp->line = calloc(p->nframes + 1, sizeof(*pp->line));
	pp->linep = calloc(p->nframes + 1, sizeof(*pp->linep));
	pp->smp = calloc(p->nstacks + 1, sizeof(*pp->smp));
	pp->smpp = calloc(p->nstacks + 1, sizeof(*pp->smpp));
	pp->ids = calloc(nids + 1, sizeof(*pp->ids));
	pp->vals = calloc(p->nstacks * nvals + 1, sizeof(*pp->vals));
	pp->strs = calloc(p->nframes + 1 + S__COUNT, sizeof(*pp->strs));
	if (!pp->fn || !pp->fnp || !pp->loc || !pp->locp || !pp->line || !pp->linep || !pp->smp ||
	    !pp->smpp || !pp->ids || !pp->vals || !pp->strs)
		return -ENOMEM;
	functions(pp, p);
	samples(pp, p, nvals, period);

	perftools__profiles__profile__init(&pp->prof);
	/* Value 0 counts events (samples for cpu_sample), as the format's convention asks. */
	value_type(p, &pp->vt[0], cpu ? S_SAMPLES : S_EVENTS, S_COUNT);
	/* off_cpu: the events, then the time they blocked (off_cpu/nanoseconds). */
	value_type(p, &pp->vt[1], p->by_ns ? S_OFF_CPU : S_CPU, S_NANOSECONDS);
	pp->vtp[0] = &pp->vt[0];
	pp->vtp[1] = &pp->vt[1];
	pp->prof.sample_type = pp->vtp;
	pp->prof.n_sample_type = nvals;
	if (cpu) {
		value_type(p, &pp->vt[2], S_CPU, S_NANOSECONDS);
		pp->prof.period_type = &pp->vt[2];
		pp->prof.period = (int64_t)period;
	}
	pp->prof.sample = pp->smpp;
	pp->prof.n_sample = p->nstacks;
	pp->prof.location = pp->locp;
	pp->prof.n_location = p->nframes;
	pp->prof.function = pp->fnp;
	pp->prof.n_function = p->nframes;
	pp->prof.string_table = pp->strs;
	pp->prof.n_string_table = p->nframes + 1 + S__COUNT;
	pp->prof.duration_nanos = (int64_t)(p->end_ns - p->start_ns);
	return 0;
}

/* gzip (RFC 1952) of buf to out. */
static int write_gzip(const uint8_t *buf, size_t len, FILE *out)
{
	uint8_t chunk[65536];
	z_stream z = { 0 };
	int zr;

	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (uint8_t *)buf;
	z.avail_in = (uInt)len;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = deflate(&z, Z_FINISH);
		fwrite(chunk, 1, sizeof(chunk) - z.avail_out, out);
	} while (zr == Z_OK);
	deflateEnd(&z);
	return zr == Z_STREAM_END && !ferror(out) ? 0 : -EIO;
}

int export__pprof(const struct ex_profile *p, FILE *out)
{
	struct pp pp = { 0 };
	uint8_t *buf = NULL;
	size_t len;
	int err;

	err = build(&pp, p);
	if (err)
		goto out;
	len = perftools__profiles__profile__get_packed_size(&pp.prof);
	buf = malloc(len + 1);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	perftools__profiles__profile__pack(&pp.prof, buf);
	err = write_gzip(buf, len, out);
out:
	free(buf);
	pp_free(&pp);
	return err;
}
