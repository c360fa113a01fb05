/* The diff's frame: open both traces, the header with what was compared and the warnings
 * where the two differ in a way that skews the comparison, then the sections. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/outfile.h"
#include "diff/diff_int.h"

int64_t diff__key(struct intern *k, const char *s, size_t n)
{
	return n >= UINT32_MAX ? -EINVAL : intern__add(k, s, (uint32_t)n);
}

void diff__note(struct diff *d, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log__warn("%s", buf);
	strbuf__addf(&d->notes, "%s\n", buf);
}

void diff__emit(struct diff *d, struct rtable *t)
{
	if (d->j)
		rtable__json(t, d->j);
	else
		rtable__print(t, d->out, REPORT_WIDTH);
	rtable__free(t);
}

static void warnings(struct diff *d)
{
	const struct diff_side *b = &d->s[BASE], *n = &d->s[NEW];

	if (strcmp(b->program, n->program))
		diff__note(d, "different programs: '%s' and '%s' (compared anyway)", b->program, n->program);
	if (b->tf.sample_freq_hz != n->tf.sample_freq_hz)
		diff__note(d, "sample rates differ (%llu and %llu Hz): CPU times are samples x period, "
			   "each run's own", (unsigned long long)b->tf.sample_freq_hz,
			   (unsigned long long)n->tf.sample_freq_hz);
	if (strcmp(b->stack_mode, n->stack_mode))
		diff__note(d, "stacks modes differ ('%s' and '%s'): stack weights are not alike",
			   b->stack_mode, n->stack_mode);
	if (strcmp(b->missing_probes, n->missing_probes))
		diff__note(d, "the probes differ (missing: %s and %s): some syscalls were traced in one "
			   "run only", b->missing_probes[0] ? b->missing_probes : "[]",
			   n->missing_probes[0] ? n->missing_probes : "[]");
	for (int i = 0; i < 2; i++) {
		const struct diff_side *s = &d->s[i];

		if (!s->tf.has_latency_ns)
			diff__note(d, "%s: no latency_ns column (an older format): syscall latencies are "
				   "from enter/exit pairs and off-CPU time is left out", s->tf.path);
		if (!s->tf.has_stack_weight)
			diff__note(d, "%s: no stack_weight column: each stack counts once", s->tf.path);
	}
}

static const struct rcol header_cols[] = {
	{ "", RC_TEXT, "field" }, { "base", RC_TEXT, NULL }, { "new", RC_TEXT, NULL },
};

static void header_row(struct rtable *t, const char *k, const char *b, const char *n)
{
	rtable__row(t);
	rtable__str(t, k);
	rtable__str(t, b);
	rtable__str(t, n);
}

/* "  warning: " and the text, wrapped at spaces to fit REPORT_WIDTH. */
static void wrap(FILE *out, const char *s, int n)
{
	const int room = REPORT_WIDTH - 11;

	fputs("  warning: ", out);
	while (n > room) {
		int cut = room;

		while (cut > room / 2 && s[cut] != ' ')
			cut--;
		if (s[cut] != ' ')
			cut = room;
		fprintf(out, "%.*s\n           ", cut, s);
		cut += s[cut] == ' ';
		s += cut;
		n -= cut;
	}
	fprintf(out, "%.*s\n", n, s);
}

static void total_row(struct rtable *t, const char *what, uint64_t b, uint64_t n)
{
	rtable__row(t);
	rtable__str(t, what);
	rtable__int(t, (int64_t)b);
	rtable__int(t, (int64_t)n);
	rtable__int(t, (int64_t)n - (int64_t)b);
	b ? rtable__ratio(t, (double)n / (double)b) : rtable__null(t);
}

/* The runs' totals in time: the first line to read. */
static void totals(struct diff *d)
{
	static const struct rcol cols[] = {
		{ "", RC_TEXT, NULL }, { "base", RC_NS, NULL }, { "new", RC_NS, NULL },
		{ "delta", RC_DNS, NULL }, { "ratio", RC_RATIO, NULL },
	};
	const struct diff_side *b = &d->s[BASE], *n = &d->s[NEW];
	struct rtable t;

	rtable__init(&t, "totals", "Totals", cols, 5);
	total_row(&t, "duration (first to last event)", b->duration_ns, n->duration_ns);
	total_row(&t, "CPU time (samples x period)", (uint64_t)((double)b->samples * b->period_ns + 0.5),
		  (uint64_t)((double)n->samples * n->period_ns + 0.5));
	total_row(&t, "syscall time", b->syscall_ns, n->syscall_ns);
	if (b->tf.has_latency_ns && n->tf.has_latency_ns)
		total_row(&t, "off-CPU time", b->off_cpu_ns, n->off_cpu_ns);
	rtable__print(&t, d->out, REPORT_WIDTH);
	rtable__free(&t);
}

static void header_text(struct diff *d)
{
	const struct diff_side *b = &d->s[BASE], *n = &d->s[NEW];
	char x[2][64];
	struct rtable t;

	rtable__init(&t, "compared", "Compared (base -> new)", header_cols, 3);
	header_row(&t, "file", b->tf.path, n->tf.path);
	header_row(&t, "command", b->command, n->command);
	snprintf(x[0], 64, "%llu", (unsigned long long)b->events);
	snprintf(x[1], 64, "%llu", (unsigned long long)n->events);
	header_row(&t, "events", x[0], x[1]);
	snprintf(x[0], 64, "%llu Hz", (unsigned long long)b->tf.sample_freq_hz);
	snprintf(x[1], 64, "%llu Hz", (unsigned long long)n->tf.sample_freq_hz);
	header_row(&t, "sample rate", x[0], x[1]);
	snprintf(x[0], 64, "%llu", (unsigned long long)b->processes);
	snprintf(x[1], 64, "%llu", (unsigned long long)n->processes);
	header_row(&t, "processes", x[0], x[1]);
	snprintf(x[0], 64, "%llu", (unsigned long long)b->syscalls);
	snprintf(x[1], 64, "%llu", (unsigned long long)n->syscalls);
	header_row(&t, "syscalls", x[0], x[1]);
	header_row(&t, "stacks", b->stack_mode, n->stack_mode);
	header_row(&t, "version", b->version, n->version);
	rtable__print(&t, d->out, REPORT_WIDTH);
	rtable__free(&t);
	if (d->notes.s) {
		fputs("\n", d->out);
		for (const char *l = d->notes.s; *l;) {
			const char *e = strchr(l, '\n');

			wrap(d->out, l, (int)(e - l));
			l = e + 1;
		}
	}
	totals(d);
}

static void side_json(struct json *j, const struct diff_side *s)
{
	json__key(j, s->run);
	json__obj_begin(j);
	json__key(j, "file");
	json__str(j, s->tf.path);
	json__key(j, "command");
	json__str(j, s->command);
	json__key(j, "version");
	json__str(j, s->version);
	json__key(j, "duration_ns");
	json__u64(j, s->duration_ns);
	json__key(j, "events");
	json__u64(j, s->events);
	json__key(j, "sample_freq_hz");
	json__u64(j, s->tf.sample_freq_hz);
	json__key(j, "period_ns");
	json__double(j, s->period_ns);
	json__key(j, "stack_mode");
	json__str(j, s->stack_mode);
	json__key(j, "cpu_ns");
	json__u64(j, (uint64_t)((double)s->samples * s->period_ns + 0.5));
	json__key(j, "syscalls");
	json__u64(j, s->syscalls);
	json__key(j, "syscall_ns");
	json__u64(j, s->syscall_ns);
	json__key(j, "off_cpu_ns");
	json__u64(j, s->off_cpu_ns);
	json__key(j, "processes");
	json__u64(j, s->processes);
	json__obj_end(j);
}

static void header_json(struct diff *d)
{
	side_json(d->j, &d->s[BASE]);
	side_json(d->j, &d->s[NEW]);
	json__key(d->j, "warnings");
	json__arr_begin(d->j);
	for (const char *l = d->notes.s; l && *l;) {
		const char *e = strchr(l, '\n');

		json__strn(d->j, l, (size_t)(e - l));
		l = e + 1;
	}
	json__arr_end(d->j);
}

static int sections(struct diff *d)
{
	static int (*const list[])(struct diff *d) = {
		diff__functions, diff__syscalls, diff__off_cpu, diff__processes,
	};
	int err = 0;

	warnings(d);
	if (d->notes.err)
		return d->notes.err;
	if (d->j)
		header_json(d);
	else
		header_text(d);
	for (size_t i = 0; !err && i < sizeof(list) / sizeof(list[0]); i++)
		err = list[i](d);
	return err;
}

/* The folded lines to o->out_path (complete or not at all) or to out. */
static int folded(struct diff *d, FILE *out)
{
	char tmp[4096];
	FILE *f;
	int err;

	warnings(d);
	if (!d->o->out_path)
		return diff__folded(d, out);
	if ((err = outfile__tmp_name(tmp, sizeof(tmp), d->o->out_path)))
		return err;
	if (!(f = fopen(tmp, "wx"))) {
		log__error("%s: cannot create: %s", tmp, strerror(errno));
		return -errno;
	}
	err = diff__folded(d, f);
	if (fclose(f) && !err)
		err = -EIO;
	if (!err)
		err = outfile__commit(tmp, d->o->out_path, false);
	if (err)
		unlink(tmp);
	return err;
}

static int json_out(struct diff *d, FILE *out)
{
	struct json j;
	int err;

	json__init(&j);
	d->j = &j;
	json__obj_begin(&j);
	err = sections(d);
	json__obj_end(&j);
	if (!err)
		err = json__print(&j, out);
	json__free(&j);
	return err;
}

int diff__run(const char *base, const char *new, const struct diff_opts *o, FILE *out)
{
	struct diff d = { .o = o, .out = out };
	int err;

	d.s[BASE].run = "base";
	d.s[NEW].run = "new";
	if (o->out_path && (err = outfile__check(o->out_path)))
		return err;
	err = diff_side__open(&d.s[BASE], base, o);
	if (!err)
		err = diff_side__open(&d.s[NEW], new, o);
	if (!err && o->folded)
		err = folded(&d, out);
	else if (!err && o->r.json)
		err = json_out(&d, out);
	else if (!err)
		err = sections(&d);
	diff_side__close(&d.s[BASE]);
	diff_side__close(&d.s[NEW]);
	strbuf__free(&d.notes);
	return err;
}
