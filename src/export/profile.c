/* Loading the aggregated stacks of one event type for the stack formats. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "export/export.h"
#include "trace/schema.h"
#include "trace/tracefile.h"

/* The id of frame (name, kind), added when new; negative errno.  Frames are interned by
 * the kind's byte and the name up to its first NUL (the name as it is printed). */
static int64_t intern(struct ex_profile *p, const char *s, size_t n, int kind)
{
	char buf[256], *key = buf;
	int64_t id;

	n = strnlen(s, n);
	if (n >= UINT32_MAX)
		return -EINVAL;
	if (n + 1 > sizeof(buf) && !(key = malloc(n + 1)))
		return -ENOMEM;
	key[0] = (char)kind;
	memcpy(key + 1, s, n);
	id = intern__add(&p->names, key, (uint32_t)(n + 1));
	if (key != buf)
		free(key);
	if (id < 0 || (uint32_t)id < p->nframes)
		return id;
	if (p->nframes == p->frames_cap) {
		uint32_t cap = p->frames_cap ? p->frames_cap * 2 : 1024;
		struct ex_frame *fr = realloc(p->frames, cap * sizeof(*fr));

		if (!fr)
			return -ENOMEM;
		p->frames = fr;
		p->frames_cap = cap;
	}
	p->frames[p->nframes++] = (struct ex_frame){ .name = (char *)p->names.strs[id] + 1,
						     .kernel = kind == 1, .process = kind == 2 };
	return id;
}

static struct ex_stack *new_stack(struct ex_profile *p, uint32_t max_frames)
{
	struct ex_stack *st;

	if (p->nstacks == p->stacks_cap) {
		uint64_t cap = p->stacks_cap ? p->stacks_cap * 2 : 1024;

		st = realloc(p->stacks, cap * sizeof(*st));
		if (!st)
			return NULL;
		p->stacks = st;
		p->stacks_cap = cap;
	}
	st = &p->stacks[p->nstacks];
	st->frames = malloc((max_frames + 1) * sizeof(uint32_t));
	if (!st->frames)
		return NULL;
	st->n = 0;
	p->nstacks++;
	return st;
}

/* One result row: process name (col 0), stack_trace (col 1), weight (col 2), events (3). */
static int add_row(struct ex_profile *p, duckdb_data_chunk chunk, idx_t r)
{
	duckdb_vector pv = duckdb_data_chunk_get_vector(chunk, 0), sv = duckdb_data_chunk_get_vector(chunk, 1);
	duckdb_list_entry *e = (duckdb_list_entry *)duckdb_vector_get_data(sv) + r;
	void *labels = duckdb_vector_get_data(duckdb_list_vector_get_child(sv));
	uint64_t w = ((uint64_t *)duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 2)))[r];
	uint64_t *pvalid = duckdb_vector_get_validity(pv);
	struct ex_stack *st = new_stack(p, (uint32_t)e->length);
	const char *name = "?";
	uint32_t len = 1;
	bool kernel = false;
	int64_t id;

	if (!st)
		return -ENOMEM;
	if (!pvalid || duckdb_validity_row_is_valid(pvalid, r))
		name = trace_file__cell(duckdb_vector_get_data(pv), r, &len);
	if ((id = intern(p, name, len, 2)) < 0)
		return (int)id;
	st->frames[st->n++] = (uint32_t)id;
	for (idx_t i = 0; i < e->length; i++) {
		const char *f = trace_file__cell(labels, e->offset + i, &len);

		/* '[user]' and '[kernel]' mark where each part of the stack starts. */
		if (stack_mark__is(f, len, STACK_MARK_USER) || stack_mark__is(f, len, STACK_MARK_KERNEL)) {
			kernel = stack_mark__is(f, len, STACK_MARK_KERNEL);
			continue;
		}
		if ((id = intern(p, f, len, kernel)) < 0)
			return (int)id;
		st->frames[st->n++] = (uint32_t)id;
	}
	st->weight = w;
	st->events = ((uint64_t *)duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 3)))[r];
	p->total += w;
	return 0;
}

static int load_range(struct ex_profile *p, duckdb_connection con)
{
	duckdb_result res;

	if (duckdb_query(con, "SELECT min(ts_ns), max(ts_ns) FROM events", &res) == DuckDBError) {
		log__error("reading the time range: %s", duckdb_result_error(&res));
		duckdb_destroy_result(&res);
		return -EIO;
	}
	p->start_ns = duckdb_value_uint64(&res, 0, 0);
	p->end_ns = duckdb_value_uint64(&res, 1, 0);
	duckdb_destroy_result(&res);
	return 0;
}

int ex_profile__load(struct ex_profile *p, duckdb_connection con, const struct export_opts *o,
		     uint64_t sample_freq_hz)
{
	char sql[512], pidc[96];
	duckdb_data_chunk chunk;
	duckdb_result res;
	int err;

	memset(p, 0, sizeof(*p));
	p->sample_freq_hz = sample_freq_hz;
	p->event_type = o->event_type;
	if ((err = load_range(p, con)))
		return err;
	export__pid_clause(o, pidc, sizeof(pidc));
	/* A sampled stack stands for stack_weight events (1 where the column is absent); an
	 * off-CPU stack weighs the time it blocked, as off-CPU profiles are read. */
	p->by_ns = !strcmp(o->event_type, event_type_names[EV_OFF_CPU]);
	snprintf(sql, sizeof(sql),
		 "SELECT process_name, stack_trace, %s::UBIGINT AS w, "
		 "sum(coalesce(stack_weight, 1))::UBIGINT "
		 "FROM events WHERE event_type = '%s' AND stack_trace IS NOT NULL%s "
		 "GROUP BY ALL ORDER BY w DESC, process_name, stack_trace",
		 p->by_ns ? "sum(coalesce(latency_ns, 0))" : "sum(coalesce(stack_weight, 1))",
		 o->event_type, pidc);
	if (duckdb_query(con, sql, &res) == DuckDBError) {
		log__error("reading stacks: %s", duckdb_result_error(&res));
		duckdb_destroy_result(&res);
		return -EIO;
	}
	while (!err && (chunk = duckdb_fetch_chunk(res))) {
		idx_t n = duckdb_data_chunk_get_size(chunk);

		for (idx_t r = 0; r < n && !err; r++)
			err = add_row(p, chunk, r);
		progress__rows(o->progress, n);
		duckdb_destroy_data_chunk(&chunk);
	}
	duckdb_destroy_result(&res);
	return err;
}

void ex_profile__free(struct ex_profile *p)
{
	for (uint64_t i = 0; i < p->nstacks; i++)
		free(p->stacks[i].frames);
	free(p->frames);
	free(p->stacks);
	intern__free(&p->names);
	memset(p, 0, sizeof(*p));
}
