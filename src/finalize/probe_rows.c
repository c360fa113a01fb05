/* --probe records as trace rows: event types named by the recording's probes, arguments
 * as the JSON text of probe_args. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/records.h"
#include "common/strbuf.h"
#include "finalize/probe_rows.h"
#include "finalize/rgwriter.h"
#include "parquet/colbuf.h"
#include "parquet/strtab.h"
#include "trace/schema.h"

#define ARG_NAME_MAX 48

struct probe_desc {
	int ev, ev_exit;		/* event type ids; ev_exit < 0 but for u:/k: */
	int nargs;
	uint8_t ret_type;		/* u: enum probe_arg_type of ret */
	uint8_t type[PROBEX_PROBE_ARGS];
	char name[PROBEX_PROBE_ARGS][ARG_NAME_MAX];
};

struct probe_rows {
	int n;
	struct probe_desc d[PROBEX_PROBES_MAX];
	const char **names;		/* the format's event types, then the probes' */
	uint32_t *lens;
	struct pq_dict dict;
	struct intern args;		/* probe_args values */
	struct strbuf sb;
};

static const char *const type_names[PA__COUNT] = {
	[PA_S8] = "s8", [PA_S16] = "s16", [PA_S32] = "s32", [PA_S64] = "s64",
	[PA_U8] = "u8", [PA_U16] = "u16", [PA_U32] = "u32", [PA_U64] = "u64",
	[PA_PTR] = "ptr", [PA_STR] = "str",
};

/* The id of event type name (added when new), or -ENOMEM. */
static int event_id(struct probe_rows *pr, const char *name, size_t len)
{
	for (uint32_t i = EV_ALL_COUNT; i < pr->dict.n; i++)
		if (pr->lens[i] == len && !memcmp(pr->names[i], name, len))
			return (int)i;
	pr->names[pr->dict.n] = strndup(name, len);
	if (!pr->names[pr->dict.n])
		return -ENOMEM;
	pr->lens[pr->dict.n] = (uint32_t)len;
	return (int)pr->dict.n++;
}

/* The string value of "key":"..." in the object starting at p (names carry no escapes:
 * the recorder allows none), or NULL. */
static const char *field(const char *p, const char *end, const char *key, size_t *len)
{
	char pat[32];
	const char *v, *q;

	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	v = strstr(p, pat);
	if (!v || v >= end)
		return NULL;
	v += strlen(pat);
	q = strchr(v, '"');
	if (!q || q > end)
		return NULL;
	*len = (size_t)(q - v);
	return v;
}

static uint8_t type_of(const char *s, size_t len)
{
	for (int t = 0; t < PA__COUNT; t++)
		if (strlen(type_names[t]) == len && !memcmp(s, type_names[t], len))
			return (uint8_t)t;
	return PA_U64;
}

static void parse_args(struct probe_desc *d, const char *s, size_t len)
{
	const char *end = s + len;

	while (s < end && d->nargs < PROBEX_PROBE_ARGS) {
		const char *comma = memchr(s, ',', end - s), *colon;
		const char *e = comma ? comma : end;

		colon = memchr(s, ':', e - s);
		if (colon && colon - s < ARG_NAME_MAX) {
			snprintf(d->name[d->nargs], ARG_NAME_MAX, "%.*s", (int)(colon - s), s);
			d->type[d->nargs] = type_of(colon + 1, (size_t)(e - colon - 1));
			d->nargs++;
		}
		s = e + 1;
	}
}

/* One object of the probex.probes array. */
static int add_probe(struct probe_rows *pr, const char *p, const char *end)
{
	struct probe_desc *d = &pr->d[pr->n];
	const char *ev, *kind, *args, *ret;
	size_t evlen, klen, alen, rlen;
	char name[300];

	ev = field(p, end, "event", &evlen);
	kind = field(p, end, "kind", &klen);
	args = field(p, end, "args", &alen);
	ret = field(p, end, "ret", &rlen);
	if (!ev || !kind || evlen > 256)
		return -EINVAL;
	memset(d, 0, sizeof(*d));
	d->ev_exit = -1;
	if ((klen == 1 && (*kind == 'u' || *kind == 'k'))) {
		snprintf(name, sizeof(name), "%.*s_enter", (int)evlen, ev);
		d->ev = event_id(pr, name, strlen(name));
		snprintf(name, sizeof(name), "%.*s_exit", (int)evlen, ev);
		d->ev_exit = event_id(pr, name, strlen(name));
	} else {
		d->ev = event_id(pr, ev, evlen);
	}
	if (d->ev < 0 || (klen == 1 && d->ev_exit < 0))
		return -ENOMEM;
	if (args)
		parse_args(d, args, alen);
	/* Files before typed returns: the whole register. */
	d->ret_type = ret ? type_of(ret, rlen) : PA_S64;
	pr->n++;
	return 0;
}

/* The probex.probes line of the session text: one object per probe id, in order. */
static int parse_meta(struct probe_rows *pr, const char *meta)
{
	const char *key = META_PROBES "\t", *line = meta, *p, *eol;

	while (line && strncmp(line, key, strlen(key)))
		line = (line = strchr(line, '\n')) ? line + 1 : NULL;
	if (!line)
		return 0;
	eol = strchrnul(line, '\n');
	for (p = strchr(line, '{'); p && p < eol && pr->n < PROBEX_PROBES_MAX; p = strchr(p + 1, '{')) {
		const char *end = strchr(p, '}');
		int err;

		if (!end || end > eol)
			break;
		err = add_probe(pr, p, end);
		if (err == -ENOMEM)
			return err;
		p = end;
	}
	return 0;
}

int probe_rows__new(struct probe_rows **out, const char *meta)
{
	const struct pq_dict *base = trace_schema__event_dict();
	struct probe_rows *pr = calloc(1, sizeof(*pr));
	int err;

	if (!pr)
		return -ENOMEM;
	pr->names = calloc(base->n + 2 * PROBEX_PROBES_MAX, sizeof(*pr->names));
	pr->lens = calloc(base->n + 2 * PROBEX_PROBES_MAX, sizeof(*pr->lens));
	if (!pr->names || !pr->lens) {
		probe_rows__free(pr);
		return -ENOMEM;
	}
	memcpy(pr->names, base->strs, base->n * sizeof(*pr->names));
	memcpy(pr->lens, base->lens, base->n * sizeof(*pr->lens));
	pr->dict = (struct pq_dict){ pr->names, pr->lens, base->n };
	err = meta ? parse_meta(pr, meta) : 0;
	if (err) {
		probe_rows__free(pr);
		return err;
	}
	*out = pr;
	return 0;
}

void probe_rows__free(struct probe_rows *pr)
{
	if (!pr)
		return;
	for (uint32_t i = EV_ALL_COUNT; i < pr->dict.n; i++)
		free((char *)pr->names[i]);
	free(pr->names);
	free(pr->lens);
	intern__free(&pr->args);
	strbuf__free(&pr->sb);
	free(pr);
}

const struct pq_dict *probe_rows__event_dict(const struct probe_rows *pr)
{
	return &pr->dict;
}

void probe_rows__args_dict(const struct probe_rows *pr, struct pq_dict *out)
{
	*out = (struct pq_dict){ pr->args.strs, pr->args.lens, pr->args.n };
}

/* A register's value as its type says: the low bytes, sign-extended for sN. */
static int64_t typed(uint64_t v, uint8_t type)
{
	switch (type) {
	case PA_S8: return (int8_t)v;
	case PA_S16: return (int16_t)v;
	case PA_S32: return (int32_t)v;
	case PA_U8: return (uint8_t)v;
	case PA_U16: return (uint16_t)v;
	case PA_U32: return (uint32_t)v;
	default: return (int64_t)v;
	}
}

/* The arguments as a JSON object: n values in args (missing ones 0), strings from ps. */
static void arg_json(struct strbuf *sb, const __u64 *args, int n, const struct rec_probe_str *ps,
		     const struct probe_desc *d)
{
	int slot = 0;

	strbuf__add(sb, "{", 1);
	for (int i = 0; i < d->nargs && i < PROBEX_PROBE_ARGS; i++) {
		uint64_t v = i < n ? args[i] : 0;

		strbuf__addf(sb, "%s\"%s\": ", i ? ", " : "", d->name[i]);
		switch (d->type[i]) {
		case PA_STR: {
			char s[PROBEX_PROBE_STR_LEN];

			if (ps && slot < PROBEX_PROBE_STRS) {
				memcpy(s, ps->str[slot], sizeof(s));
				s[sizeof(s) - 1] = 0;
			} else {
				s[0] = 0;
			}
			slot++;
			strbuf__add_json_str(sb, s);
			break;
		}
		case PA_S8: case PA_S16: case PA_S32: case PA_S64:
			strbuf__addf(sb, "%lld", (long long)v);
			break;
		default:
			strbuf__addf(sb, "%llu", (unsigned long long)v);
			break;
		}
	}
	strbuf__add(sb, "}", 1);
}

static void exit_cols(struct colbuf *c, const struct probe_desc *d, int64_t ret, uint64_t enter_ts, uint64_t ts)
{
	colbuf__set(c, TC_RET, (uint64_t)typed((uint64_t)ret, d->ret_type));
	if (enter_ts && enter_ts <= ts)
		colbuf__set(c, TC_LATENCY, ts - enter_ts);
}

static int args_col(struct probe_rows *pr, struct colbuf *c, const __u64 *args, int n,
		    const struct rec_probe_str *ps, const struct probe_desc *d, struct rg_writer *g)
{
	int64_t id;
	int err;

	pr->sb.len = 0;
	arg_json(&pr->sb, args, n, ps, d);
	if (pr->sb.err)
		return pr->sb.err;
	if (pr->args.n == pr->args.cap && (err = rg_writer__wait(g)))
		return err;
	id = strtab__intern(&pr->args, pr->sb.s, (uint32_t)pr->sb.len);
	if (id < 0)
		return (int)id;
	colbuf__set(c, TC_PROBE_ARGS, (uint64_t)id);
	return 0;
}

/* A call in one record: its enter row (arguments) or exit row (ret, latency). */
static int call_cols(struct probe_rows *pr, struct colbuf *c, const struct rec_probe_call *p, uint32_t len,
		     bool exit_half, struct rg_writer *g, int *ev)
{
	const struct probe_desc *d;
	uint32_t n = p->nargs;

	if (len < sizeof(*p) || p->id >= (uint32_t)pr->n)
		return -EIO;
	d = &pr->d[p->id];
	if (exit_half) {
		*ev = d->ev_exit >= 0 ? d->ev_exit : d->ev;
		exit_cols(c, d, p->ret, p->enter_ts, p->h.ts);
		return 0;
	}
	*ev = d->ev;
	if (n > (len - sizeof(*p)) / 8)
		n = (len - sizeof(*p)) / 8;
	return args_col(pr, c, p->args, (int)n, NULL, d, g);
}

int probe_rows__cols(struct probe_rows *pr, struct colbuf *c, const void *rec, uint32_t len,
		     bool exit_half, struct rg_writer *g, int *ev)
{
	const struct rec_probe *p = rec;
	const struct probe_desc *d;

	if (p->h.kind == REC_PROBE_CALL)
		return call_cols(pr, c, rec, len, exit_half, g, ev);
	if (len < sizeof(*p) || p->id >= (uint32_t)pr->n)
		return -EIO;
	d = &pr->d[p->id];
	if (p->h.sub == PROBE_EXIT) {
		*ev = d->ev_exit >= 0 ? d->ev_exit : d->ev;
		exit_cols(c, d, p->ret, p->enter_ts, p->h.ts);
		return 0;
	}
	*ev = d->ev;
	return args_col(pr, c, p->args, PROBEX_PROBE_ARGS,
			p->h.kind == REC_PROBE_STR && len >= sizeof(struct rec_probe_str) ? rec : NULL, d, g);
}
