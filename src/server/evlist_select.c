#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "server/evlist_select.h"

struct cand {
	uint64_t lat;	/* latency + 1; 0: none */
	uint64_t rn;
};

static int by_latency(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->lat != y->lat)
		return x->lat > y->lat ? -1 : 1;
	return x->rn < y->rn ? -1 : x->rn > y->rn;
}

static bool ci_has(const char *hay, size_t n, const char *needle, size_t k)
{
	if (!k)
		return true;
	for (size_t i = 0; i + k <= n; i++)
		if (!strncasecmp(hay + i, needle, k))
			return true;
	return false;
}

struct matcher {
	const struct model *m;
	const char *text;
	size_t len;
	uint32_t pid;		/* whose names name_hit is for */
	bool have_pid, name_hit;
	uint8_t type_hit[TRACE_MAX_TYPES];	/* 0 unknown, 1 no, 2 yes */
	uint8_t *stack_hit;			/* per stack id, the same */
};

/* Whether pid's first or last name holds the text (rows come by thread: one check each). */
static bool name_matches(struct matcher *mt, uint32_t pid)
{
	const char *last = NULL, *first;
	uint32_t tgid;

	if (mt->have_pid && mt->pid == pid)
		return mt->name_hit;
	first = model__name(mt->m, pid);
	model__name_info(mt->m, pid, &last, &tgid);
	mt->pid = pid;
	mt->have_pid = true;
	mt->name_hit = (first && ci_has(first, strlen(first), mt->text, mt->len)) ||
		       (last && ci_has(last, strlen(last), mt->text, mt->len));
	return mt->name_hit;
}

/* A row matches by its type, its thread's name, or any frame of its stack. */
static bool row_matches(struct matcher *mt, uint64_t rn)
{
	const struct model *m = mt->m;
	unsigned int t = model__type(m, rn);
	uint32_t id;

	if (name_matches(mt, model__pid_of(m, rn)))
		return true;
	if (!mt->type_hit[t]) {
		const char *s = m->type_names[t];

		mt->type_hit[t] = ci_has(s, strlen(s), mt->text, mt->len) ? 2 : 1;
	}
	if (mt->type_hit[t] == 2)
		return true;
	id = __atomic_load_n(&m->stack, __ATOMIC_ACQUIRE) ? model__stack(m, rn) : STACK_NULL;
	if (id == STACK_NULL || id >= m->nstacks || !mt->stack_hit)
		return false;
	if (!mt->stack_hit[id])
		mt->stack_hit[id] = ci_has(m->stack_json[id], m->stack_json_len[id], mt->text,
					   mt->len) ? 2 : 1;
	return mt->stack_hit[id] == 2;
}

static void matcher__init(struct matcher *mt, const struct model *m, const struct evlist_query *q)
{
	memset(mt, 0, sizeof(*mt));
	mt->m = m;
	mt->text = q->search;
	mt->len = strlen(q->search);
	if (m->nstacks)
		mt->stack_hit = calloc(m->nstacks, 1);
}

int evlist__select(const struct model *m, const uint64_t *rows, uint64_t lo, uint64_t hi,
		   const struct evlist_query *q, uint64_t offset, uint64_t limit, uint64_t *page,
		   uint64_t *shown, uint64_t *total)
{
	struct cand *c = malloc((hi - lo) * sizeof(*c) + 1);
	struct matcher mt;
	uint64_t n = 0;

	*shown = *total = 0;
	if (!c)
		return -ENOMEM;
	if (q->search && *q->search)
		matcher__init(&mt, m, q);
	for (uint64_t i = lo; i < hi; i++) {
		uint64_t r = rows ? rows[i] : i;

		if (q->types && !q->types[model__type(m, r)])
			continue;
		if (q->search && *q->search && !row_matches(&mt, r))
			continue;
		c[n].rn = r;
		c[n].lat = m->has_latency_ns && (m->flags[r] & ROW_LAT) ? model__latency(m, r) + 1 : 0;
		n++;
	}
	if (q->search && *q->search)
		free(mt.stack_hit);
	if (q->by_latency)
		qsort(c, n, sizeof(*c), by_latency);
	*total = n;
	for (uint64_t i = offset; i < n && *shown < limit; i++)
		page[(*shown)++] = c[i].rn;
	free(c);
	return 0;
}
