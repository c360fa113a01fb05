#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/bsearch.h"
#include "symbolize/addrspace.h"

enum ev_kind { EV_EXEC, EV_FORK, EV_MMAP };

struct as_event {
	uint64_t ts;
	uint32_t seq;		/* arrival order breaks timestamp ties */
	uint8_t kind;
	uint32_t tgid, child;
	struct mapping m;
};

struct space {
	struct mapping *maps;
	uint32_t n, cap;
};

struct epoch {
	uint64_t ts;
	uint32_t space;
};

struct proc {
	uint32_t tgid;
	struct epoch *epochs;	/* increasing ts */
	uint32_t n, cap;
};

struct addrspace {
	struct as_event *evs;
	uint32_t nev, evcap;
	struct space *spaces;	/* index 0 unused: "unknown" */
	uint32_t nspaces, spcap;
	struct proc *procs;	/* sorted by tgid after build */
	uint32_t nprocs, pcap;
	char **strings;		/* owned paths and build-ids */
	uint32_t nstr, strcap;
	uint32_t nmaps;
};

#define GROW(arr, n, cap)                                                                  \
	({                                                                                 \
		int _e = 0;                                                                \
		if ((n) == (cap)) {                                                        \
			uint32_t _c = (cap) ? (cap) * 2 : 64;                              \
			void *_p = realloc((arr), _c * sizeof(*(arr)));                     \
			if (_p) {                                                          \
				(arr) = _p;                                                \
				(cap) = _c;                                                \
			} else {                                                           \
				_e = -ENOMEM;                                              \
			}                                                                  \
		}                                                                          \
		_e;                                                                        \
	})

struct addrspace *addrspace__new(void)
{
	return calloc(1, sizeof(struct addrspace));
}

void addrspace__free(struct addrspace *as)
{
	if (!as)
		return;
	for (uint32_t i = 0; i < as->nspaces; i++)
		free(as->spaces[i].maps);
	for (uint32_t i = 0; i < as->nprocs; i++)
		free(as->procs[i].epochs);
	for (uint32_t i = 0; i < as->nstr; i++)
		free(as->strings[i]);
	free(as->strings);
	free(as->spaces);
	free(as->procs);
	free(as->evs);
	free(as);
}

static void *keep(struct addrspace *as, const void *p, size_t n)
{
	char *c;

	if (GROW(as->strings, as->nstr, as->strcap))
		return NULL;
	c = malloc(n + 1);
	if (!c)
		return NULL;
	memcpy(c, p, n);
	c[n] = 0;
	as->strings[as->nstr++] = c;
	return c;
}

static struct as_event *add_ev(struct addrspace *as, uint64_t ts, uint8_t kind, uint32_t tgid)
{
	struct as_event *e;

	if (GROW(as->evs, as->nev, as->evcap))
		return NULL;
	e = &as->evs[as->nev];
	memset(e, 0, sizeof(*e));
	e->ts = ts;
	e->seq = as->nev++;
	e->kind = kind;
	e->tgid = tgid;
	return e;
}

int addrspace__add_fork(struct addrspace *as, uint64_t ts, uint32_t parent, uint32_t child)
{
	struct as_event *e = add_ev(as, ts, EV_FORK, parent);

	if (!e)
		return -ENOMEM;
	e->child = child;
	return 0;
}

int addrspace__add_exec(struct addrspace *as, uint64_t ts, uint32_t tgid)
{
	return add_ev(as, ts, EV_EXEC, tgid) ? 0 : -ENOMEM;
}

int addrspace__add_mmap(struct addrspace *as, uint64_t ts, uint32_t tgid, uint64_t start,
			uint64_t len, uint64_t pgoff, const char *path, const unsigned char *bid,
			uint8_t bid_len)
{
	struct as_event *e = add_ev(as, ts, EV_MMAP, tgid);

	if (!e)
		return -ENOMEM;
	e->m.start = start;
	e->m.end = start + len;
	e->m.pgoff = pgoff;
	e->m.ts = ts;
	e->m.path = keep(as, path, strlen(path));
	if (bid && bid_len) {
		e->m.build_id = keep(as, bid, bid_len);
		e->m.build_id_len = bid_len;
	}
	return e->m.path ? 0 : -ENOMEM;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct as_event *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Linear lookup during build only (procs get sorted afterwards). */
static struct proc *proc_get(struct addrspace *as, uint32_t tgid)
{
	for (uint32_t i = as->nprocs; i-- > 0;)
		if (as->procs[i].tgid == tgid)
			return &as->procs[i];
	if (GROW(as->procs, as->nprocs, as->pcap))
		return NULL;
	memset(&as->procs[as->nprocs], 0, sizeof(struct proc));
	as->procs[as->nprocs].tgid = tgid;
	return &as->procs[as->nprocs++];
}

static uint32_t new_space(struct addrspace *as)
{
	if (!as->nspaces) {
		if (GROW(as->spaces, as->nspaces, as->spcap))
			return 0;
		memset(&as->spaces[as->nspaces++], 0, sizeof(struct space));
	}
	if (GROW(as->spaces, as->nspaces, as->spcap))
		return 0;
	memset(&as->spaces[as->nspaces], 0, sizeof(struct space));
	return as->nspaces++;
}

static int proc_enter(struct addrspace *as, struct proc *p, uint64_t ts, uint32_t space)
{
	if (GROW(p->epochs, p->n, p->cap))
		return -ENOMEM;
	p->epochs[p->n++] = (struct epoch){ .ts = ts, .space = space };
	return 0;
}

static uint32_t proc_current(const struct proc *p)
{
	return p->n ? p->epochs[p->n - 1].space : 0;
}

static int apply(struct addrspace *as, const struct as_event *e)
{
	struct proc *p = proc_get(as, e->tgid), *c;
	uint32_t sp, from;
	struct space *s;

	if (!p)
		return -ENOMEM;
	switch (e->kind) {
	case EV_EXEC:
		sp = new_space(as);
		return sp ? proc_enter(as, p, e->ts, sp) : -ENOMEM;
	case EV_FORK:
		/* The child starts with a copy of the parent's mappings. */
		from = proc_current(p);
		c = proc_get(as, e->child);
		p = NULL;	/* proc_get may have moved the array */
		sp = new_space(as);
		if (!c || !sp)
			return -ENOMEM;
		if (from && as->spaces[from].n) {
			s = &as->spaces[sp];
			s->maps = malloc(as->spaces[from].n * sizeof(*s->maps));
			if (!s->maps)
				return -ENOMEM;
			memcpy(s->maps, as->spaces[from].maps, as->spaces[from].n * sizeof(*s->maps));
			s->n = s->cap = as->spaces[from].n;
		}
		return proc_enter(as, c, e->ts, sp);
	case EV_MMAP:
		sp = proc_current(p);
		if (!sp) {
			/* First sight of this process: start an address space for it. */
			sp = new_space(as);
			if (!sp || proc_enter(as, p, 0, sp))
				return -ENOMEM;
		}
		s = &as->spaces[sp];
		if (GROW(s->maps, s->n, s->cap))
			return -ENOMEM;
		s->maps[s->n++] = e->m;
		as->nmaps++;
		return 0;
	}
	return 0;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

int addrspace__build(struct addrspace *as)
{
	int err;

	/* qsort's pointers must be valid even for 0 elements (a spool may have no events). */
	if (as->nev)
		qsort(as->evs, as->nev, sizeof(*as->evs), cmp_ev);
	for (uint32_t i = 0; i < as->nev; i++) {
		err = apply(as, &as->evs[i]);
		if (err)
			return err;
	}
	free(as->evs);
	as->evs = NULL;
	as->nev = as->evcap = 0;
	if (as->nprocs)
		qsort(as->procs, as->nprocs, sizeof(*as->procs), cmp_proc);
	return 0;
}

uint32_t addrspace__space_at(const struct addrspace *as, uint32_t tgid, uint64_t ts)
{
	uint32_t lo = BSEARCH_FIRST(0u, as->nprocs, i, as->procs[i].tgid < tgid);
	const struct proc *p = NULL;

	if (lo < as->nprocs && as->procs[lo].tgid == tgid)
		p = &as->procs[lo];
	if (!p || !p->n)
		return 0;
	/* Last epoch starting at or before ts. */
	lo = BSEARCH_FIRST(0u, p->n, i, p->epochs[i].ts <= ts);
	return lo ? p->epochs[lo - 1].space : 0;
}

const struct mapping *addrspace__find(const struct addrspace *as, uint32_t space, uint64_t addr,
				      uint64_t ts)
{
	const struct space *s;

	if (!space || space >= as->nspaces)
		return NULL;
	s = &as->spaces[space];
	for (uint32_t i = s->n; i-- > 0;) {
		const struct mapping *m = &s->maps[i];

		if (addr >= m->start && addr < m->end && m->ts <= ts)
			return m;
	}
	return NULL;
}

uint32_t addrspace__mapping_count(const struct addrspace *as)
{
	return as->nmaps;
}

uint32_t addrspace__space_count(const struct addrspace *as)
{
	return as->nspaces;
}

const struct mapping *addrspace__space_mappings(const struct addrspace *as, uint32_t space,
						 uint32_t *n)
{
	if (!space || space >= as->nspaces) {
		*n = 0;
		return NULL;
	}
	*n = as->spaces[space].n;
	return as->spaces[space].maps;
}

int addrspace__restore(struct addrspace *as, uint32_t space, const struct mapping *m)
{
	struct mapping copy = *m;
	struct space *s;

	while (as->nspaces <= space)
		if (!new_space(as))
			return -ENOMEM;
	copy.path = keep(as, m->path, strlen(m->path));
	if (!copy.path)
		return -ENOMEM;
	if (m->build_id && m->build_id_len) {
		copy.build_id = keep(as, m->build_id, m->build_id_len);
		if (!copy.build_id)
			return -ENOMEM;
	}
	s = &as->spaces[space];
	if (GROW(s->maps, s->n, s->cap))
		return -ENOMEM;
	s->maps[s->n++] = copy;
	as->nmaps++;
	return 0;
}
