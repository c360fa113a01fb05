/* Dictionary-encoded column chunks: strings, PQ_U32 values below PQ_INT_DICT_LIMIT and
 * string lists get a chunk-local dictionary page and RLE_DICTIONARY indices. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/parquet_int.h"

#define STAT_STR_MAX	256	/* longer string min/max are left out rather than truncated */

/* ---- dictionary-encoded strings ---- */

int pq_dict__reserve(struct pq_scratch *s, uint32_t n)
{
	uint32_t *remap, *order;

	if (n <= s->remap_cap)
		return 0;
	remap = realloc(s->remap, (size_t)n * sizeof(*remap));
	if (!remap)
		return -ENOMEM;
	s->remap = remap;
	memset(remap + s->remap_cap, 0, (size_t)(n - s->remap_cap) * sizeof(*remap));
	order = realloc(s->order, (size_t)n * sizeof(*order));
	if (!order)
		return -ENOMEM;
	s->order = order;
	s->remap_cap = n;
	return 0;
}

/* caller string id → dense chunk-local id, in first-seen order */
static inline uint32_t local_id(struct pq_scratch *s, uint32_t id, uint32_t *ndict)
{
	uint32_t l = s->remap[id];

	if (!l) {
		l = ++*ndict;
		s->remap[id] = l;
		s->order[l - 1] = id;
	}
	return l - 1;
}

static int str_cmp(const struct pq_dict *d, uint32_t a, uint32_t b)
{
	uint32_t la = d->lens[a], lb = d->lens[b];
	int r = memcmp(d->strs[a], d->strs[b], la < lb ? la : lb);

	return r ? r : (la > lb) - (la < lb);
}

/* Dictionary page (PLAIN byte arrays) and byte-wise min/max of the strings used. */
static int emit_dict(struct pq_scratch *s, const struct pq_encode_opts *o,
		     const struct pq_dict *dict, uint32_t ndict, struct pq_chunk *c)
{
	size_t total = 0;
	uint32_t mn = 0, mx = 0;
	int err;

	for (uint32_t i = 0; i < ndict; i++)
		total += 4 + (size_t)dict->lens[s->order[i]];
	s->page.len = 0;
	err = pq_buf__reserve(&s->page, total);
	if (err)
		return err;
	for (uint32_t i = 0; i < ndict; i++) {
		uint32_t id = s->order[i], len = dict->lens[id];

		memcpy(s->page.p + s->page.len, &len, 4);
		if (len)
			memcpy(s->page.p + s->page.len + 4, dict->strs[id], len);
		s->page.len += 4 + (size_t)len;
		if (str_cmp(dict, id, s->order[mn]) < 0)
			mn = i;
		if (str_cmp(dict, id, s->order[mx]) > 0)
			mx = i;
	}
	mn = s->order[mn];
	mx = s->order[mx];
	if (dict->lens[mn] <= STAT_STR_MAX && dict->lens[mx] <= STAT_STR_MAX) {
		c->min = (const uint8_t *)dict->strs[mn];
		c->max = (const uint8_t *)dict->strs[mx];
		c->min_len = dict->lens[mn];
		c->max_len = dict->lens[mx];
		c->has_minmax = c->minmax_exact = true;
	}
	return pq_page__emit(s, o, c, PAGE_DICTIONARY, ndict, ENC_PLAIN);
}

/* Dictionary page of a PQ_U32 column (PLAIN INT32 values) and their min/max. */
static int emit_int_dict(struct pq_scratch *s, const struct pq_encode_opts *o,
			 const struct pq_leaf *l, uint32_t ndict, struct pq_chunk *c)
{
	struct pq_minmax mm = { .any = ndict > 0, .umin = UINT64_MAX };
	int err;

	s->page.len = 0;
	err = pq_buf__reserve(&s->page, (size_t)ndict * 4);
	if (err)
		return err;
	for (uint32_t i = 0; i < ndict; i++) {
		uint32_t v = s->order[i];

		memcpy(s->page.p + s->page.len, &v, 4);
		s->page.len += 4;
		mm.umin = v < mm.umin ? v : mm.umin;
		mm.umax = v > mm.umax ? v : mm.umax;
	}
	pq_minmax__store(&mm, l, c);
	return pq_page__emit(s, o, c, PAGE_DICTIONARY, ndict, ENC_PLAIN);
}

/* Values section of a dictionary data page: bit width byte + RLE hybrid indices. */
static void put_indices(struct pq_buf *p, const uint32_t *ids, size_t n, int width)
{
	p->p[p->len++] = (uint8_t)width;
	pq_rle__encode_u32(p, ids, n, width);
}

/* Strings by their ids into d->dict, or (d->dict NULL) PQ_U32 values below ndict_in. */
int pq_dict__encode_strings(struct pq_scratch *s, const struct pq_encode_opts *o,
			    const struct pq_leaf *l, uint32_t nrows,
			    const struct pq_column_data *d, struct pq_chunk *c, uint32_t *ndict,
			    uint32_t ndict_in)
{
	const uint32_t *v = d->values;
	const uint8_t *valid = d->valid;
	size_t rows = o->page_bytes / 4, npages = (nrows + rows - 1) / rows, k = 0;
	uint32_t *ids, *kstart;
	int width, err;

	s->ids.len = 0;
	s->pages.len = 0;
	err = pq_buf__reserve(&s->ids, (size_t)nrows * 4);
	if (!err)
		err = pq_buf__reserve(&s->pages, (npages + 1) * 4);
	if (err)
		return err;
	ids = (uint32_t *)s->ids.p;
	kstart = (uint32_t *)s->pages.p;
	for (size_t p = 0; p < npages; p++) {
		size_t end = (p + 1) * rows < nrows ? (p + 1) * rows : nrows;

		kstart[p] = (uint32_t)k;
		for (size_t i = p * rows; i < end; i++) {
			if (valid && !valid[i])
				continue;
			if (v[i] >= ndict_in)
				return -EINVAL;
			ids[k++] = local_id(s, v[i], ndict);
		}
	}
	kstart[npages] = (uint32_t)k;
	if (*ndict) {
		err = d->dict ? emit_dict(s, o, d->dict, *ndict, c) : emit_int_dict(s, o, l, *ndict, c);
		if (err)
			return err;
	}
	width = pq_rle__width(*ndict > 1 ? *ndict - 1 : 1);
	for (size_t p = 0; p < npages; p++) {
		size_t r = p * rows, n = nrows - r < rows ? nrows - r : rows;
		size_t cnt = kstart[p + 1] - kstart[p];

		s->page.len = 0;
		err = pq_buf__reserve(&s->page, 5 + pq_rle__bound(n, 1) + pq_rle__bound(cnt, width));
		if (err)
			return err;
		if (!l->required)
			pq_levels__put_bits(&s->page, d->valid ? d->valid + r : NULL, n);
		if (*ndict)
			put_indices(&s->page, ids + kstart[p], cnt, width);
		err = pq_page__emit(s, o, c, PAGE_DATA, (uint32_t)n,
				*ndict ? ENC_RLE_DICTIONARY : ENC_PLAIN);
		if (err)
			return err;
	}
	c->num_values = nrows;
	c->null_count = (int64_t)(nrows - k);
	return 0;
}

/* ---- string lists: 3-level LIST, one level entry per item, or one for null/empty ---- */

/* A present item is at the leaf's max definition level, a null one a level below. */
#define ITEM_DEF(id) ((uint8_t)((id) == PQ_NULL_ITEM ? item - 1 : item))

struct list_page {
	uint32_t row_end, item_end, entries;
};

int pq_dict__encode_lists(struct pq_scratch *s, const struct pq_encode_opts *o,
			  const struct pq_leaf *l, uint32_t nrows, const struct pq_column_data *d,
			  struct pq_chunk *c, uint32_t *ndict)
{
	const int32_t *v = d->values;
	const struct pq_lists *ls = d->lists;
	const uint8_t empty = l->required ? 0 : 1, item = (uint8_t)l->max_def;
	uint32_t page_entries = o->page_bytes / 4, entries = 0, npages = 0;
	int64_t total = 0;
	size_t k = 0, k0 = 0;
	struct list_page *pg;
	int width, err;

	s->ids.len = 0;
	s->pages.len = 0;
	for (uint32_t i = 0; i < nrows; i++) {
		bool null = (d->valid && !d->valid[i]) || v[i] < 0;
		uint32_t a, b;

		if (null) {
			if (l->required)
				return -EINVAL;
			entries++;
		} else {
			if ((uint32_t)v[i] >= ls->n)
				return -EINVAL;
			a = ls->offsets[v[i]];
			b = ls->offsets[v[i] + 1];
			if (b < a)
				return -EINVAL;
			err = pq_buf__reserve(&s->ids, (size_t)(b - a) * 4);
			if (err)
				return err;
			for (uint32_t j = a; j < b; j++) {
				if (ls->items[j] == PQ_NULL_ITEM)
					continue;
				if (ls->items[j] >= d->dict->n)
					return -EINVAL;
				((uint32_t *)s->ids.p)[k++] = local_id(s, ls->items[j], ndict);
			}
			s->ids.len = k * 4;
			entries += b > a ? b - a : 1;
		}
		if (entries >= page_entries || i + 1 == nrows) {
			err = pq_buf__reserve(&s->pages, sizeof(*pg));
			if (err)
				return err;
			pg = (struct list_page *)(s->pages.p + s->pages.len);
			*pg = (struct list_page){ i + 1, (uint32_t)k, entries };
			s->pages.len += sizeof(*pg);
			total += entries;
			entries = 0;
			npages++;
		}
	}
	if (*ndict) {
		err = emit_dict(s, o, d->dict, *ndict, c);
		if (err)
			return err;
	}
	width = pq_rle__width(*ndict > 1 ? *ndict - 1 : 1);
	for (uint32_t p = 0, r = 0; p < npages; p++) {
		struct list_page page = ((struct list_page *)s->pages.p)[p];
		const uint32_t *ids = (const uint32_t *)s->ids.p;
		uint8_t *rep, *def;
		size_t e = 0;

		s->levels.len = 0;
		s->page.len = 0;
		err = pq_buf__reserve(&s->levels, (size_t)page.entries * 2);
		if (!err)
			err = pq_buf__reserve(&s->page, 9 + pq_rle__bound(page.entries, 1) +
						      pq_rle__bound(page.entries, 2) +
						      pq_rle__bound(page.item_end - k0, width));
		if (err)
			return err;
		rep = s->levels.p;
		def = rep + page.entries;
		for (; r < page.row_end; r++) {
			bool null = (d->valid && !d->valid[r]) || v[r] < 0;
			uint32_t a = null ? 0 : ls->offsets[v[r]], b = null ? 0 : ls->offsets[v[r] + 1];

			rep[e] = 0;
			def[e++] = null ? 0 : b == a ? empty : ITEM_DEF(ls->items[a]);
			for (uint32_t j = a + 1; j < b; j++) {
				rep[e] = 1;
				def[e++] = ITEM_DEF(ls->items[j]);
			}
		}
		pq_levels__put_u8(&s->page, rep, e, 1);
		pq_levels__put_u8(&s->page, def, e, pq_rle__width(l->max_def));
		if (*ndict)
			put_indices(&s->page, ids + k0, page.item_end - k0, width);
		k0 = page.item_end;
		err = pq_page__emit(s, o, c, PAGE_DATA, (uint32_t)e,
				*ndict ? ENC_RLE_DICTIONARY : ENC_PLAIN);
		if (err)
			return err;
	}
	c->num_values = total;
	c->null_count = total - (int64_t)k;
	return 0;
}
