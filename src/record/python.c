/* CPython processes of a recording (python.h): which processes run it, told to the
 * kernel, and their code objects read into the spool while they live. */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/pysection.h"
#include "common/hmap.h"
#include "common/log.h"
#include "common/strbuf.h"
#include "record/pycode.h"
#include "record/pyfind.h"
#include "record/python.h"
#include "spool/spool.h"

/* A process linked with libpython is looked at again each consumer cycle (~10 ms) until
 * the loader has mapped it, this many times at most. */
#define LATER_TRIES 100

enum proc_state { PS_PYTHON, PS_LATER, PS_OTHER };

/* One process image (an exec starts a new one). */
struct pyimage {
	uint32_t tgid;
	uint8_t state;		/* enum proc_state */
	uint8_t tries;
	uint16_t version;
	uint64_t epoch;
	uint64_t eval, eval_size;
	struct py_proc proc;
};

struct pyrec {
	int map_fd;
	struct spool_writer *w;
	struct pyimage *img;
	uint32_t nimg, cap;
	struct hmap by_tgid;	/* tgid -> its current image's index */
	struct hmap codes;	/* hash of (image index, code address, fingerprint): read */
	uint8_t *buf;		/* a SPOOL_PYCODE payload */
	uint64_t processes, unsupported, code_read, code_bad, code_gone;
	bool said_unsupported;
};

int pyrec__new(struct pyrec **out, int pyprocs_fd, struct spool_writer *w)
{
	struct pyrec *r = calloc(1, sizeof(*r));

	if (!r || !(r->buf = malloc(PYCODE_ITEM_MAX))) {
		free(r);
		return -ENOMEM;
	}
	r->map_fd = pyprocs_fd;
	r->w = w;
	*out = r;
	return 0;
}

void pyrec__free(struct pyrec *r)
{
	if (!r)
		return;
	hmap__free(&r->by_tgid);
	hmap__free(&r->codes);
	free(r->img);
	free(r->buf);
	free(r);
}

static struct pyimage *image_of(struct pyrec *r, uint32_t tgid)
{
	uint32_t i;

	return hmap__get(&r->by_tgid, tgid, &i) ? &r->img[i] : NULL;
}

/* A new image for tgid (its exec, or first sight). */
static struct pyimage *image_new(struct pyrec *r, uint32_t tgid, uint64_t epoch)
{
	struct pyimage *im;

	if (r->nimg == r->cap) {
		uint32_t cap = r->cap ? r->cap * 2 : 64;

		im = realloc(r->img, cap * sizeof(*im));
		if (!im)
			return NULL;
		r->img = im;
		r->cap = cap;
	}
	if (hmap__put(&r->by_tgid, tgid, r->nimg))
		return NULL;
	im = &r->img[r->nimg++];
	*im = (struct pyimage){ .tgid = tgid, .state = PS_OTHER, .epoch = epoch };
	return im;
}

static void unsupported(struct pyrec *r, const struct pyfound *f, uint32_t tgid)
{
	r->unsupported++;
	if (r->said_unsupported)
		return;
	r->said_unsupported = true;
	log__warn("pid %u runs CPython %d.%d (%s), which probex cannot walk: its stacks stay native"
		  " (python_unsupported counts such processes)", tgid, f->version >> 8,
		  f->version & 0xff, f->path);
}

/* What finalize needs to put the frames in place: where the eval loop's code is. */
static int spool_interp(struct pyrec *r, const struct pyimage *im)
{
	struct spool_pycode c = { .tgid = im->tgid, .version = im->version, .flags = PYCODE_INTERP,
				  .code = im->eval, .epoch = im->epoch,
				  .table_len = (uint32_t)im->eval_size };

	return spool_writer__append_side(r->w, SPOOL_PYCODE, &c, sizeof(c), SPOOL_PYCODE);
}

static void look(struct pyrec *r, struct pyimage *im)
{
	struct pyfound f;

	switch (pyfind__process(im->tgid, &f)) {
	case PYFIND_OK:
		im->state = PS_PYTHON;
		im->version = f.version;
		im->proc = f.proc;
		im->eval = f.eval;
		im->eval_size = f.eval_size;
		r->processes++;
		if (spool_interp(r, im))
			log__debug("python: pid %u: the spool refused its interpreter item", im->tgid);
		if (bpf_map_update_elem(r->map_fd, &im->tgid, &im->proc, BPF_ANY))
			log__debug("python: pid %u not added (%s)", im->tgid, strerror(errno));
		log__debug("python: pid %u runs CPython %d.%d (%s)", im->tgid, f.version >> 8,
			   f.version & 0xff, f.path);
		return;
	case PYFIND_LATER:
		im->state = ++im->tries < LATER_TRIES ? PS_LATER : PS_OTHER;
		return;
	case PYFIND_UNSUPPORTED:
		unsupported(r, &f, im->tgid);
		/* fall through */
	default:
		im->state = PS_OTHER;
	}
}

int pyrec__check(struct pyrec *r, uint32_t tgid, uint64_t epoch)
{
	struct pyimage *im = image_new(r, tgid, epoch);

	if (!im)
		return -ENOMEM;
	look(r, im);
	return im->state == PS_PYTHON;
}

void pyrec__poll(struct pyrec *r)
{
	for (uint32_t i = 0; i < r->nimg; i++) {
		uint32_t cur;

		if (r->img[i].state != PS_LATER || !hmap__get(&r->by_tgid, r->img[i].tgid, &cur) || cur != i)
			continue;
		look(r, &r->img[i]);
	}
}

/* A forked child runs its parent's interpreter at the same addresses. */
static void on_fork(struct pyrec *r, const struct rec_fork *fk)
{
	struct pyimage *parent = image_of(r, fk->h.tgid), *im;
	uint32_t pi;

	if (!parent || fk->child_tgid == fk->h.tgid)
		return;
	pi = (uint32_t)(parent - r->img);
	im = image_new(r, fk->child_tgid, fk->h.ts);
	if (!im)
		return;
	parent = &r->img[pi];	/* image_new may have moved it */
	im->state = parent->state;
	im->tries = parent->tries;
	im->version = parent->version;
	im->proc = parent->proc;
	im->eval = parent->eval;
	im->eval_size = parent->eval_size;
	if (im->state == PS_PYTHON)
		spool_interp(r, im);
	if (im->state == PS_PYTHON &&
	    bpf_map_update_elem(r->map_fd, &im->tgid, &im->proc, BPF_ANY))
		log__debug("python: pid %u not added (%s)", im->tgid, strerror(errno));
}

/* Each code object a record names, read the first time this image names it. */
static int on_frames(struct pyrec *r, const void *data, uint32_t size)
{
	const struct rec_hdr *h = data;
	uint32_t off = rec_pystack_at(data, size, false), ii;
	const struct rec_pystack *s = (const void *)((const char *)data + off);
	const struct py_frame *f = (const void *)(s + 1);
	struct pyimage *im;

	if (!off || !hmap__get(&r->by_tgid, h->tgid, &ii))
		return 0;
	im = &r->img[ii];
	for (uint32_t i = 0; i < s->n; i++) {
		uint64_t code = f[i].code & ~PY_CODE_ENTRY, key;
		const struct spool_pycode *c = (const void *)r->buf;
		uint32_t len, seen;
		int err;

		key = hmap__fnv1a(&ii, sizeof(ii), HMAP_FNV_SEED);
		key = hmap__fnv1a(&code, sizeof(code), key);
		key = hmap__fnv1a(&f[i].fp, sizeof(f[i].fp), key);
		if (!code || hmap__get(&r->codes, key, &seen))
			continue;
		if ((err = hmap__put(&r->codes, key, 1)))
			return err;
		len = pycode__read(h->tgid, &im->proc, im->version, code, f[i].fp, im->epoch, r->buf);
		r->code_read++;
		if (c->flags & PYCODE_BAD)
			r->code_bad++;
		err = spool_writer__append_side(r->w, SPOOL_PYCODE, r->buf, len, SPOOL_PYCODE);
		if (err)
			return err;
	}
	return 0;
}

int pyrec__on_record(struct pyrec *r, const void *data, uint32_t size)
{
	const struct rec_hdr *h = data;

	if (size < sizeof(*h))
		return 0;
	if (h->kind == REC_EXEC && size >= sizeof(struct rec_exec)) {
		struct pyimage *old = image_of(r, h->tgid);

		if (old && old->state == PS_PYTHON)
			bpf_map_delete_elem(r->map_fd, &h->tgid);
		return pyrec__check(r, h->tgid, h->ts) < 0 ? -ENOMEM : 0;
	}
	if (h->kind == REC_FORK && size >= sizeof(struct rec_fork)) {
		on_fork(r, data);
		return 0;
	}
	if (h->kind == REC_EXIT && size >= sizeof(struct rec_exit) &&
	    ((const struct rec_exit *)data)->group_dead) {
		struct pyimage *im = image_of(r, h->tgid);

		if (im && im->state == PS_PYTHON)
			bpf_map_delete_elem(r->map_fd, &h->tgid);
		return 0;
	}
	if (h->flags & REC_F_PYSTACK)
		return on_frames(r, data, size);
	return 0;
}

void pyrec__drops(const struct pyrec *r, struct strbuf *out)
{
	if (!r)
		return;
	strbuf__addf(out, "\"python_processes\":%llu,\"python_unsupported\":%llu,"
		     "\"python_code_objects\":%llu,\"python_code_unreadable\":%llu,",
		     (unsigned long long)r->processes, (unsigned long long)r->unsupported,
		     (unsigned long long)r->code_read, (unsigned long long)r->code_bad);
}
