/* speedscope's file format (https://www.speedscope.app/file-format-schema.json): one
 * "sampled" profile whose samples are the distinct stacks, weighted by their events. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/strbuf.h"
#include "export/export.h"
#include "trace/schema.h"

static void put_str(FILE *out, struct strbuf *b, const char *s)
{
	b->len = 0;
	strbuf__add_json_str(b, s);
	if (b->s)
		fwrite(b->s, 1, b->len, out);
}

int export__speedscope(const struct ex_profile *p, FILE *out, const char *name)
{
	/* CPU samples weigh their sampling period, so every time profile is in ns. */
	uint64_t scale = !p->by_ns && !strcmp(p->event_type, "cpu_sample") && p->sample_freq_hz ?
			 1000000000ull / p->sample_freq_hz : 0;
	struct strbuf b = { 0 };
	int err;

	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"probex "
	      PROBEX_VERSION "\",\"name\":", out);
	put_str(out, &b, name);
	fputs(",\"activeProfileIndex\":0,\"shared\":{\"frames\":[", out);
	for (uint32_t i = 0; i < p->nframes; i++) {
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
		put_str(out, &b, p->frames[i].name);
		if (p->frames[i].kernel)
			fputs(",\"file\":\"" STACK_MARK_KERNEL "\"", out);
		fputc('}', out);
	}
	fputs("]},\"profiles\":[{\"type\":\"sampled\",\"name\":", out);
	put_str(out, &b, p->event_type);
	fprintf(out, ",\"unit\":\"%s\",", p->by_ns || scale ? "nanoseconds" : "none");
	fprintf(out, "\"startValue\":0,\"endValue\":%llu,\"samples\":[",
		(unsigned long long)(p->total * (scale ? scale : 1)));
	for (uint64_t i = 0; i < p->nstacks; i++) {
		fputs(i ? ",\n[" : "\n[", out);
		for (uint32_t k = 0; k < p->stacks[i].n; k++)
			fprintf(out, k ? ",%u" : "%u", p->stacks[i].frames[k]);
		fputc(']', out);
	}
	fputs("],\"weights\":[", out);
	for (uint64_t i = 0; i < p->nstacks; i++)
		fprintf(out, i ? ",%llu" : "%llu",
			(unsigned long long)(p->stacks[i].weight * (scale ? scale : 1)));
	fputs("]}]}\n", out);
	err = b.err ? b.err : ferror(out) ? -EIO : 0;
	strbuf__free(&b);
	return err;
}
