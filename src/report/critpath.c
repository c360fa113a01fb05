/* `probex report FILE --critical-path`: the critical path of a thread (model/critpath.h),
 * as JSON segments or grouped by thread, state and stack in text. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/strbuf.h"
#include "model/critpath.h"
#include "model/load.h"
#include "report/report.h"
#include "trace/duck.h"
#include "trace/schema.h"

/* A group of the text form: one thread in one state with one stack. */
struct cpgroup {
	uint32_t tid, stack;
	enum thread_state state;
	uint64_t ns;
};

static int cmp_key(const void *a, const void *b)
{
	const struct cpgroup *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	return (x->stack > y->stack) - (x->stack < y->stack);
}

static int cmp_ns(const void *a, const void *b)
{
	const struct cpgroup *x = a, *y = b;

	return (x->ns < y->ns) - (x->ns > y->ns);
}

/* The stack leaf first, marks left out. */
static void stack_text(const struct model *m, uint32_t id, struct strbuf *b)
{
	const struct trace_rows *l = &m->labels;
	bool first = true;

	if (id == STACK_NULL || id >= m->nstacks || !l->stack_count) {
		strbuf__addf(b, "-");
		return;
	}
	for (uint32_t k = l->stack_count[id]; k-- > 0;) {
		uint32_t len;
		const char *s = trace_rows__label(l, l->stack_first[id] + k, &len);

		if (stack_mark__is(s, len, STACK_MARK_USER) || stack_mark__is(s, len, STACK_MARK_KERNEL))
			continue;
		strbuf__addf(b, "%s%.*s", first ? "" : " < ", (int)len, s);
		first = false;
	}
}

static const char *thread_label(const struct model *m, uint32_t tid, char *buf, size_t size)
{
	const char *last = NULL;
	uint32_t tgid = tid;

	model__name_info(m, tid, &last, &tgid);
	snprintf(buf, size, "%s/%u", last ? last : "?", tid);
	return buf;
}

/* The path by program (thread name) and state: what the thread waited on, whichever
 * processes ran it (a build's many compilers are one line). */
static void by_name(const struct model *m, const struct cpsegs *c, uint64_t span, FILE *out)
{
	static const struct rcol cols[] = {
		{ "share%", RC_PCT, NULL }, { "time", RC_NS, NULL }, { "program", RC_TEXT, NULL },
		{ "state", RC_TEXT, NULL }, { "threads", RC_INT, NULL },
	};
	struct { const char *name; int state; uint64_t ns; uint64_t n; uint32_t last; } g[64];
	size_t n = 0;
	struct rtable t;

	for (size_t i = 0; i < c->n; i++) {
		const char *name = NULL;
		uint32_t tgid;
		size_t k;

		if (!model__name_info(m, c->v[i].tid, &name, &tgid))
			name = "?";
		for (k = 0; k < n && (strcmp(g[k].name, name) || g[k].state != (int)c->v[i].state); k++)
			;
		if (k == n) {
			if (n == sizeof(g) / sizeof(g[0]))
				continue;
			g[n++] = (typeof(g[0])){ name, (int)c->v[i].state, 0, 0, 0 };
		}
		g[k].ns += c->v[i].end - c->v[i].start;
		if (g[k].last != c->v[i].tid)	/* counts runs of a thread: near enough */
			g[k].n++;
		g[k].last = c->v[i].tid;
	}
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && g[k].ns > g[k - 1].ns; k--) {
			typeof(g[0]) x = g[k];

			g[k] = g[k - 1];
			g[k - 1] = x;
		}
	rtable__init(&t, "by_program", "By program and state", cols, 5);
	for (size_t i = 0; i < n && i < 10; i++) {
		rtable__row(&t);
		rtable__pct(&t, span ? (double)g[i].ns / (double)span : 0);
		rtable__int(&t, (int64_t)g[i].ns);
		rtable__str(&t, g[i].name);
		rtable__str(&t, thread_state_names[g[i].state]);
		rtable__int(&t, (int64_t)g[i].n);
	}
	rtable__print(&t, out, REPORT_WIDTH);
	rtable__free(&t);
}

/* Where chains end outside the trace: blocked segments whose waker is not a traced
 * thread, by waker (named by its comm at the wakeup). */
static void outside(const struct model *m, const struct sched *s, const struct cpsegs *c,
		    uint64_t span, FILE *out)
{
	static const struct rcol cols[] = {
		{ "share%", RC_PCT, NULL }, { "time", RC_NS, NULL }, { "waker", RC_TEXT, NULL },
		{ "pid", RC_INT, NULL },
	};
	struct { const struct sched_off *o; uint64_t ns; } g[16];
	size_t n = 0;
	struct rtable t;
	char buf[64];

	for (size_t i = 0; i < c->n; i++) {
		const struct sched_off *o = c->v[i].off;
		size_t k;

		if ((c->v[i].state != TS_SLEEPING && c->v[i].state != TS_DISK) || !o ||
		    !o->waker_pid || model__name(m, o->waker_pid))
			continue;
		for (k = 0; k < n && g[k].o->waker_pid != o->waker_pid; k++)
			;
		if (k == n) {
			if (n == sizeof(g) / sizeof(g[0]))
				continue;
			g[n++] = (typeof(g[0])){ o, 0 };
		}
		g[k].ns += c->v[i].end - c->v[i].start;
	}
	if (!n)
		return;
	rtable__init(&t, "outside_wakers", "Waits ended by wakers outside the trace", cols, 4);
	for (size_t i = 0; i < n; i++) {
		const char *name = sched__waker_name(s, g[i].o);

		snprintf(buf, sizeof(buf), "%s/%u", name ? name : "?", g[i].o->waker_pid);
		rtable__row(&t);
		rtable__pct(&t, span ? (double)g[i].ns / (double)span : 0);
		rtable__int(&t, (int64_t)g[i].ns);
		rtable__str(&t, buf);
		rtable__int(&t, g[i].o->waker_tgid);
	}
	fputc('\n', out);
	rtable__print(&t, out, REPORT_WIDTH);
	rtable__free(&t);
}

static int text(const struct model *m, const struct sched *s, const struct cpsegs *c, uint32_t tid,
		uint64_t start, uint64_t end, const struct report_opts *o, FILE *out)
{
	static const struct rcol cols[] = {
		{ "share%", RC_PCT, NULL }, { "time", RC_NS, NULL }, { "thread", RC_TEXT, NULL },
		{ "state", RC_TEXT, NULL }, { "stack (leaf first)", RC_TEXT, NULL },
	};
	struct cpgroup *g = malloc((c->n + 1) * sizeof(*g));
	char title[160], buf[64];
	size_t n = 0;
	struct rtable t;

	if (!g)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++)
		g[i] = (struct cpgroup){ c->v[i].tid, critpath__stack(m, &c->v[i]), c->v[i].state,
					 c->v[i].end - c->v[i].start };
	qsort(g, c->n, sizeof(*g), cmp_key);
	for (size_t i = 0; i < c->n; i++) {
		if (n && !cmp_key(&g[n - 1], &g[i]))
			g[n - 1].ns += g[i].ns;
		else
			g[n++] = g[i];
	}
	qsort(g, n, sizeof(*g), cmp_ns);
	snprintf(title, sizeof(title), "Critical path of %s over %.3f ms (by thread, state and stack)",
		 thread_label(m, tid, buf, sizeof(buf)), (double)(end - start) / 1e6);
	rtable__init(&t, "critical_path", title, cols, 5);
	for (size_t i = 0; i < n; i++) {
		struct strbuf b = { 0 };

		if (i >= o->top) {
			t.left_out = n - i;
			break;
		}
		stack_text(m, g[i].stack, &b);
		rtable__row(&t);
		rtable__pct(&t, end > start ? (double)g[i].ns / (double)(end - start) : 0);
		rtable__int(&t, (int64_t)g[i].ns);
		rtable__str(&t, thread_label(m, g[i].tid, buf, sizeof(buf)));
		rtable__str(&t, thread_state_names[g[i].state]);
		rtable__str(&t, b.s ? b.s : "-");
		strbuf__free(&b);
	}
	rtable__print(&t, out, REPORT_WIDTH);
	rtable__free(&t);
	free(g);
	fputc('\n', out);
	by_name(m, c, end - start, out);
	outside(m, s, c, end - start, out);
	return 0;
}

static void json_stack(struct json *j, const struct model *m, uint32_t id)
{
	if (id == STACK_NULL || id >= m->nstacks)
		json__null(j);
	else
		json__raw(j, m->stack_json[id], m->stack_json_len[id]);
}

/* A blocked segment's waker: tid, pid and name (its comm at the wakeup when not traced). */
static void json_waker(struct json *j, const struct model *m, const struct sched *s,
		       const struct sched_off *o)
{
	const char *name = o && o->waker_pid ? model__name(m, o->waker_pid) : NULL;
	bool w = o && o->waker_pid;

	if (!name)
		name = sched__waker_name(s, o);
	json__key(j, "waker_tid");
	if (w)
		json__u64(j, o->waker_pid);
	else
		json__null(j);
	json__key(j, "waker_pid");
	if (w)
		json__u64(j, o->waker_tgid);
	else
		json__null(j);
	json__key(j, "waker_name");
	if (name)
		json__str(j, name);
	else
		json__null(j);
}

static void json_seg(struct json *j, const struct model *m, const struct sched *s,
		     const struct cpseg *g)
{
	const char *last = NULL;
	uint32_t tgid = g->tid;
	const struct sched_off *o = g->state == TS_SLEEPING || g->state == TS_DISK ? g->off : NULL;

	model__name_info(m, g->tid, &last, &tgid);
	json__obj_begin(j);
	json__key(j, "tid");
	json__u64(j, g->tid);
	json__key(j, "pid");
	json__u64(j, tgid);
	json__key(j, "thread_name");
	if (last)
		json__str(j, last);
	else
		json__null(j);
	json__key(j, "state");
	json__str(j, thread_state_names[g->state]);
	json__key(j, "start_ns");
	json__u64(j, g->start);
	json__key(j, "end_ns");
	json__u64(j, g->end);
	json__key(j, "stack");
	json_stack(j, m, critpath__stack(m, g));
	json_waker(j, m, s, o);
	json__obj_end(j);
}

static int json_out(const struct model *m, const struct sched *s, const struct cpsegs *c,
		    uint32_t tid, uint64_t start, uint64_t end, FILE *out)
{
	struct json j;

	json__init(&j);
	json__obj_begin(&j);
	json__key(&j, "tid");
	json__u64(&j, tid);
	json__key(&j, "start_ns");
	json__u64(&j, start);
	json__key(&j, "end_ns");
	json__u64(&j, end);
	json__key(&j, "segments");
	json__arr_begin(&j);
	for (size_t i = 0; i < c->n; i++)
		json_seg(&j, m, s, &c->v[i]);
	json__arr_end(&j);
	json__key(&j, "note");
	if (!s->has_switches)
		json__str(&j, "the trace has no sched_switch rows: thread states are unknown");
	else if (!s->has_runnable)
		json__str(&j, "runnable time after a wakeup is unknown (the trace has no runnable_ns "
			      "column): a block's segments run to the thread's next switch in");
	else
		json__null(&j);
	json__obj_end(&j);
	return json__print(&j, out);
}

/* The path of the model and scheduling rows, once loaded. */
static int path_of(const struct model *m, const struct sched *s, const struct report_opts *o, FILE *out)
{
	uint32_t tid = o->has_tid ? o->tid : critpath__default_tid(m, s->root_pid);
	uint64_t l0, l1, start, end;
	struct cpsegs c = { 0 };
	int err;

	if (!states__life(m, s, tid, &l0, &l1)) {
		log__error("tid %u is not in the trace", tid);
		return -EINVAL;
	}
	start = o->has_start ? m->min_ts + o->start_ns : l0;
	end = o->has_end ? m->min_ts + o->end_ns : l1;
	start = start > l0 ? start : l0;
	end = end < l1 ? end : l1;
	if (end < start)
		end = start;
	if ((err = critpath__build(m, s, tid, start, end, &c)))
		return err;
	err = o->json ? json_out(m, s, &c, tid, start, end, out)
		      : text(m, s, &c, tid, start, end, o, out);
	cpsegs__free(&c);
	return err;
}

int report__critical_path(const char *path, const struct report_opts *o, FILE *out)
{
	struct trace_rows rows = { 0 };
	struct model m = { 0 };
	struct sched s = { 0 };
	duckdb_connection con;
	struct trace_file tf;
	duckdb_database db;
	bool cancel = false;
	int err = duck__open_memory(&db, &con, 0);

	if (err)
		return err;
	if ((err = trace_file__open(path, con, &tf)))
		goto out_db;
	progress__phase(o->progress, "rows");
	err = model__load_rows(con, &tf, &cancel, &m, &rows, NULL, NULL, true);
	if (!err) {
		progress__phase(o->progress, "stacks");
		err = model__load_stacks(con, &tf, &cancel, &m, &rows);
	}
	trace_rows__free(&rows);
	if (!err) {
		progress__phase(o->progress, "scheduling");
		err = sched__load(con, &tf, &s);
	}
	progress__done(o->progress);
	if (!err)
		err = path_of(&m, &s, o, out);
	sched__free(&s);
	model__free(&m);
	trace_file__free(&tf);
out_db:
	duckdb_disconnect(&con);
	duckdb_close(&db);
	return err;
}
