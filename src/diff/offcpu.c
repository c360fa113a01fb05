/* Off-CPU time by blocking stack in both runs: the off_cpu rows' latency_ns summed per
 * stack_trace (the stack the thread blocked in), sorted by the absolute change. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff_int.h"
#include "trace/tracefile.h"

/* Frames joined by US (0x1f), which no label holds; marks left out; "" for no stack. */
#define OFF_SQL "SELECT coalesce(array_to_string(list_filter(stack_trace, f -> f NOT IN " \
	"('[user]', '[kernel]')), chr(31)), ''), sum(latency_ns)::UBIGINT, count(*)::UBIGINT " \
	"FROM events WHERE event_type = 'off_cpu' AND latency_ns IS NOT NULL GROUP BY 1"

struct off {
	uint64_t ns[2], n[2];
	uint32_t key;
};

struct offs {
	struct intern keys;
	struct off *o;
	uint32_t cap;
};

static int add(struct offs *t, int side, const char *s, uint32_t len, uint64_t ns, uint64_t n)
{
	int64_t id = diff__key(&t->keys, s, len);

	if (id < 0)
		return (int)id;
	if (t->keys.n > t->cap) {
		uint32_t cap = t->keys.n * 2;
		struct off *o = realloc(t->o, cap * sizeof(*o));

		if (!o)
			return -ENOMEM;
		memset(&o[t->cap], 0, (cap - t->cap) * sizeof(*o));
		t->o = o;
		t->cap = cap;
	}
	t->o[id].key = (uint32_t)id;
	t->o[id].ns[side] += ns;
	t->o[id].n[side] += n;
	return 0;
}

static int load(struct diff *d, struct offs *t, int side)
{
	duckdb_data_chunk chunk;
	duckdb_result res;
	int err;

	/* Compared on what both have: nothing when either file has no latency_ns. */
	if (!d->s[BASE].tf.has_latency_ns || !d->s[NEW].tf.has_latency_ns)
		return 0;
	if ((err = report__query(&d->s[side].r, "off-CPU stacks", OFF_SQL, &res)))
		return err;
	while (!err && (chunk = duckdb_fetch_chunk(res))) {
		void *keys = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 0));
		uint64_t *ns = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 1));
		uint64_t *n = duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 2));

		for (idx_t r = 0; !err && r < duckdb_data_chunk_get_size(chunk); r++) {
			uint32_t len;
			const char *s = trace_file__cell(keys, r, &len);

			err = add(t, side, s, len, ns[r], n[r]);
		}
		duckdb_destroy_data_chunk(&chunk);
	}
	duckdb_destroy_result(&res);
	return err;
}

static int cmp_change(const void *x, const void *y)
{
	const struct off *a = x, *b = y;
	uint64_t da = diff__abs((int64_t)a->ns[NEW], (int64_t)a->ns[BASE]);
	uint64_t db = diff__abs((int64_t)b->ns[NEW], (int64_t)b->ns[BASE]);

	if (da != db)
		return da > db ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

/* Leaf first, as report's top stacks: "leaf < caller < ... < root". */
static void leaf_first(struct strbuf *b, const char *s)
{
	const char *end = s + strlen(s);

	if (!*s) {
		strbuf__addf(b, "(no stack)");
		return;
	}
	while (end > s) {
		const char *p = end;

		while (p > s && p[-1] != 0x1f)
			p--;
		strbuf__addf(b, "%s%.*s", b->len ? " < " : "", (int)(end - p), p);
		end = p > s ? p - 1 : s;
	}
}

static void json_stack(struct json *j, const char *s)
{
	json__key(j, "stack");
	json__arr_begin(j);
	while (*s) {
		const char *e = strchr(s, 0x1f);
		size_t n = e ? (size_t)(e - s) : strlen(s);

		json__strn(j, s, n);
		s += n + (e ? 1 : 0);
	}
	json__arr_end(j);
}

static void emit_json(struct diff *d, struct offs *t)
{
	json__key(d->j, "off_cpu");
	json__arr_begin(d->j);
	for (uint32_t i = 0; i < t->keys.n && i < d->o->r.top; i++) {
		const struct off *o = &t->o[i];

		json__obj_begin(d->j);
		json_stack(d->j, t->keys.strs[o->key]);
		json__key(d->j, "base_ns");
		json__u64(d->j, o->ns[BASE]);
		json__key(d->j, "new_ns");
		json__u64(d->j, o->ns[NEW]);
		json__key(d->j, "base_count");
		json__u64(d->j, o->n[BASE]);
		json__key(d->j, "new_count");
		json__u64(d->j, o->n[NEW]);
		json__obj_end(d->j);
	}
	json__arr_end(d->j);
}

static void emit_text(struct diff *d, struct offs *t)
{
	static const struct rcol cols[] = {
		{ "base", RC_NS, NULL }, { "new", RC_NS, NULL }, { "delta", RC_DNS, NULL },
		{ "ratio", RC_RATIO, NULL }, { "blocking stack (leaf first)", RC_TEXT, NULL },
	};
	struct strbuf b = { 0 };
	struct rtable r;

	rtable__init(&r, "off_cpu", "Off-CPU time by blocking stack (sorted by change)", cols, 5);
	for (uint32_t i = 0; i < t->keys.n; i++) {
		const struct off *o = &t->o[i];

		if (i >= d->o->r.top) {
			r.left_out = t->keys.n - i;
			break;
		}
		b.len = 0;
		leaf_first(&b, t->keys.strs[o->key]);
		rtable__row(&r);
		rtable__int(&r, (int64_t)o->ns[BASE]);
		rtable__int(&r, (int64_t)o->ns[NEW]);
		rtable__int(&r, (int64_t)o->ns[NEW] - (int64_t)o->ns[BASE]);
		o->ns[BASE] ? rtable__ratio(&r, (double)o->ns[NEW] / (double)o->ns[BASE]) : rtable__null(&r);
		rtable__str(&r, b.s ? b.s : "");
	}
	strbuf__free(&b);
	diff__emit(d, &r);
}

int diff__off_cpu(struct diff *d)
{
	struct offs t = { 0 };
	int err;

	err = load(d, &t, BASE);
	if (!err)
		err = load(d, &t, NEW);
	if (!err && t.keys.n)
		qsort(t.o, t.keys.n, sizeof(*t.o), cmp_change);
	if (!err)
		d->j ? emit_json(d, &t) : emit_text(d, &t);
	intern__free(&t.keys);
	free(t.o);
	return err;
}
