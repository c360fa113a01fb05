/* One column chunk → Parquet pages.
 *
 * Data pages are V1: [repetition levels][definition levels][values], each level block a
 * 4-byte length + RLE hybrid, the whole body ZSTD-compressed.  Numbers are PLAIN;
 * strings and list items get a chunk-local dictionary (only the ids this chunk uses, in
 * first-seen order) written as a PLAIN dictionary page, and RLE_DICTIONARY indices
 * (parquet_dict.c).
 * Pages hold about page_bytes of values and always start at a row boundary. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/parquet_int.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "Parquet PLAIN values and level lengths are written as host-order integers"
#endif

#define HDR_MAX		64	/* a page header is < 40 bytes */

int pq_scratch__init(struct pq_scratch *s)
{
	memset(s, 0, sizeof(*s));
	s->zc = ZSTD_createCCtx();
	return s->zc ? 0 : -ENOMEM;
}

void pq_scratch__free(struct pq_scratch *s)
{
	free(s->order);
	free(s->remap);
	pq_buf__free(&s->pages);
	pq_buf__free(&s->levels);
	pq_buf__free(&s->ids);
	pq_buf__free(&s->hdr);
	pq_buf__free(&s->page);
	ZSTD_freeCCtx(s->zc);
	memset(s, 0, sizeof(*s));
}

/* Compress s->page into c->out behind its page header. */
int pq_page__emit(struct pq_scratch *s, const struct pq_encode_opts *o, struct pq_chunk *c,
		  int type, uint32_t nvalues, int encoding)
{
	size_t bound = ZSTD_compressBound(s->page.len), csize;
	uint8_t *dst;
	int err;

	if (s->page.len > INT32_MAX / 2)
		return -E2BIG;
	err = pq_buf__reserve(&c->out, HDR_MAX + bound);
	if (err)
		return err;
	/* Compress past the largest header, then slide the frame down behind the real one:
	 * one copy of compressed bytes instead of a staging buffer per page. */
	dst = c->out.p + c->out.len + HDR_MAX;
	csize = ZSTD_compressCCtx(s->zc, dst, bound, s->page.p, s->page.len, o->zstd_level);
	if (ZSTD_isError(csize))
		return -EIO;
	s->hdr.len = 0;
	err = pq_thrift__page_header(&s->hdr, type, (uint32_t)s->page.len, (uint32_t)csize,
				     nvalues, encoding);
	if (err)
		return err;
	if (s->hdr.len > HDR_MAX)
		return -EOVERFLOW;
	memmove(c->out.p + c->out.len + s->hdr.len, dst, csize);
	memcpy(c->out.p + c->out.len, s->hdr.p, s->hdr.len);
	c->out.len += s->hdr.len + csize;
	c->uncompressed += (int64_t)(s->hdr.len + s->page.len);
	if (type == PAGE_DICTIONARY)
		c->dict_len = (uint32_t)c->out.len;
	else
		c->ndata_pages++;
	return 0;
}

/* A V1 level block: 4-byte length, then the RLE hybrid. */
void pq_levels__put_bits(struct pq_buf *p, const uint8_t *valid, size_t n)
{
	size_t at = p->len;
	uint32_t len;

	p->len += 4;
	pq_rle__encode_bits(p, valid, n);
	len = (uint32_t)(p->len - at - 4);
	memcpy(p->p + at, &len, 4);
}

void pq_levels__put_u8(struct pq_buf *p, const uint8_t *v, size_t n, int width)
{
	size_t at = p->len;
	uint32_t len;

	p->len += 4;
	pq_rle__encode_u8(p, v, n, width);
	len = (uint32_t)(p->len - at - 4);
	memcpy(p->p + at, &len, 4);
}

static inline bool all_nonzero(uint64_t w)
{
	return !((w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull);
}

/* Copy the valid values of a page as OT (PLAIN) and fold them into *mm.  Stores are
 * unconditional and the cursor advances by validity, which keeps the loop branch-free. */
#define DEFINE_GATHER(NAME, T, OT, LO, HI, ACC_MIN, ACC_MAX)                           \
	static size_t NAME(uint8_t *o, const T *v, const uint8_t *valid, size_t n,     \
			   struct pq_minmax *mm)                                        \
	{                                                                               \
		T mn = HI, mx = LO;                                                     \
		size_t k = 0;                                                           \
                                                                                        \
		if (!valid) {                                                           \
			for (size_t i = 0; i < n; i++) {                                \
				OT x = v[i];                                            \
				memcpy(o + i * sizeof(OT), &x, sizeof(OT));             \
				mn = v[i] < mn ? v[i] : mn;                             \
				mx = v[i] > mx ? v[i] : mx;                             \
			}                                                               \
			k = n;                                                          \
		} else {                                                                \
			for (size_t i = 0; i < n; i += 8) {                             \
				size_t end = i + 8 < n ? i + 8 : n;                     \
				uint64_t w = 0;                                         \
                                                                                        \
				/* 8 nulls: leave v unread (its pages may be untouched) */ \
				memcpy(&w, valid + i, end - i);                         \
				if (!w)                                                 \
					continue;                                       \
				if (end - i == 8 && all_nonzero(w)) {                   \
					for (size_t j = i; j < end; j++, k++) {         \
						OT x = v[j];                            \
                                                                                        \
						memcpy(o + k * sizeof(OT), &x, sizeof(OT)); \
						mn = v[j] < mn ? v[j] : mn;             \
						mx = v[j] > mx ? v[j] : mx;             \
					}                                               \
					continue;                                       \
				}                                                       \
				for (size_t j = i; j < end; j++) {                      \
					OT x = v[j];                                    \
					bool ok = valid[j] != 0;                        \
                                                                                        \
					memcpy(o + k * sizeof(OT), &x, sizeof(OT));     \
					k += ok;                                        \
					mn = ok && v[j] < mn ? v[j] : mn;               \
					mx = ok && v[j] > mx ? v[j] : mx;               \
				}                                                       \
			}                                                               \
		}                                                                       \
		if (k) {                                                                \
			if (!mm->any || mn < mm->ACC_MIN)                               \
				mm->ACC_MIN = mn;                                       \
			if (!mm->any || mx > mm->ACC_MAX)                               \
				mm->ACC_MAX = mx;                                       \
			mm->any = true;                                                 \
		}                                                                       \
		return k;                                                               \
	}

DEFINE_GATHER(gather_u8, uint8_t, uint32_t, 0, UINT8_MAX, umin, umax)
DEFINE_GATHER(gather_u32, uint32_t, uint32_t, 0, UINT32_MAX, umin, umax)
DEFINE_GATHER(gather_i32, int32_t, int32_t, INT32_MIN, INT32_MAX, smin, smax)
DEFINE_GATHER(gather_u64, uint64_t, uint64_t, 0, UINT64_MAX, umin, umax)
DEFINE_GATHER(gather_i64, int64_t, int64_t, INT64_MIN, INT64_MAX, smin, smax)

/* PLAIN booleans are bit-packed, LSB first; tmp holds the compacted valid values. */
static size_t gather_bool(uint8_t *o, uint8_t *tmp, const uint8_t *v, const uint8_t *valid,
			  size_t n, struct pq_minmax *mm)
{
	size_t k = 0, i;
	uint8_t last[8] = { 0 };

	if (!valid) {
		memcpy(tmp, v, n);
		k = n;
	} else {
		for (i = 0; i < n; i++) {
			tmp[k] = v[i];
			k += valid[i] != 0;
		}
	}
	for (i = 0; i < k; i++) {
		uint64_t b = tmp[i] != 0;

		if (!mm->any || b < mm->umin)
			mm->umin = b;
		if (!mm->any || b > mm->umax)
			mm->umax = b;
		mm->any = true;
	}
	for (i = 0; i + 8 <= k; i += 8)
		*o++ = pq_rle__pack8(tmp + i);
	if (i < k) {
		memcpy(last, tmp + i, k - i);
		*o++ = pq_rle__pack8(last);
	}
	return k;
}

void pq_minmax__store(const struct pq_minmax *mm, const struct pq_leaf *l, struct pq_chunk *c)
{
	uint8_t *b = c->minmax_buf;
	uint32_t w = l->phys == PT_INT64 ? 8 : l->phys == PT_INT32 ? 4 : 1;
	uint64_t mn = l->type == PQ_I32 || l->type == PQ_I64 ? (uint64_t)mm->smin : mm->umin;
	uint64_t mx = l->type == PQ_I32 || l->type == PQ_I64 ? (uint64_t)mm->smax : mm->umax;

	if (!mm->any)
		return;
	/* low bytes of the two's complement value are its INT32/INT64/BOOLEAN PLAIN form */
	memcpy(b, &mn, w);
	memcpy(b + 8, &mx, w);
	c->min = b;
	c->max = b + 8;
	c->min_len = c->max_len = w;
	c->has_minmax = c->minmax_exact = true;
}

static int encode_plain(struct pq_scratch *s, const struct pq_encode_opts *o,
			const struct pq_leaf *l, uint32_t nrows, const struct pq_column_data *d,
			struct pq_chunk *c)
{
	size_t width = l->phys == PT_INT64 ? 8 : 4;
	size_t rows = l->type == PQ_BOOL ? (size_t)o->page_bytes * 8 : o->page_bytes / width;
	struct pq_minmax mm = { 0 };
	int err;

	for (size_t r = 0, n; r < nrows; r += n) {
		const uint8_t *valid = d->valid ? d->valid + r : NULL;
		uint8_t *out;
		size_t k = 0;

		n = nrows - r < rows ? nrows - r : rows;
		s->page.len = 0;
		s->levels.len = 0;
		err = pq_buf__reserve(&s->page, 4 + pq_rle__bound(n, 1) + n * width + 8);
		if (!err && l->type == PQ_BOOL)
			err = pq_buf__reserve(&s->levels, n);
		if (err)
			return err;
		if (!l->required)
			pq_levels__put_bits(&s->page, valid, n);
		out = s->page.p + s->page.len;
		switch (l->type) {
		case PQ_U8:
			k = gather_u8(out, (const uint8_t *)d->values + r, valid, n, &mm);
			break;
		case PQ_U32:
			k = gather_u32(out, (const uint32_t *)d->values + r, valid, n, &mm);
			break;
		case PQ_I32:
			k = gather_i32(out, (const int32_t *)d->values + r, valid, n, &mm);
			break;
		case PQ_U64:
			k = gather_u64(out, (const uint64_t *)d->values + r, valid, n, &mm);
			break;
		case PQ_I64:
			k = gather_i64(out, (const int64_t *)d->values + r, valid, n, &mm);
			break;
		case PQ_BOOL:
			k = gather_bool(out, s->levels.p, (const uint8_t *)d->values + r, valid,
					n, &mm);
			break;
		default:
			return -EINVAL;
		}
		if (l->delta) {
			/* Re-encode the gathered values in place of their PLAIN form. */
			err = pq_buf__reserve(&s->ids, k * 8);
			if (!err)
				err = pq_buf__reserve(&s->page, 4 + pq_rle__bound(n, 1) + pq_delta__bound(k));
			if (err)
				return err;
			out = s->page.p + s->page.len;
			if (k)	/* an all-null page: ids may not be allocated */
				memcpy(s->ids.p, out, k * 8);
			s->page.len += pq_delta__encode(out, (const uint64_t *)s->ids.p, k);
		} else {
			s->page.len += l->type == PQ_BOOL ? (k + 7) / 8 : k * width;
		}
		c->null_count += (int64_t)(n - k);
		c->data_encoding = l->delta ? ENC_DELTA_BINARY_PACKED : ENC_PLAIN;
		err = pq_page__emit(s, o, c, PAGE_DATA, (uint32_t)n, c->data_encoding);
		if (err)
			return err;
	}
	c->num_values = nrows;
	pq_minmax__store(&mm, l, c);
	return 0;
}

/* The largest valid value of a PQ_U32 column (0 when none). */
static uint32_t u32_max(uint32_t nrows, const struct pq_column_data *d)
{
	const uint32_t *v = d->values;
	uint32_t max = 0;

	for (uint32_t i = 0; i < nrows; i++)
		if ((!d->valid || d->valid[i]) && v[i] > max)
			max = v[i];
	return max;
}

int pq_column__encode(struct pq_scratch *s, const struct pq_encode_opts *o,
		      const struct pq_leaf *l, uint32_t nrows, const struct pq_column_data *d,
		      struct pq_chunk *c)
{
	uint32_t ndict = 0, max = 0;
	int err;

	c->out.len = 0;
	c->num_values = c->uncompressed = c->null_count = 0;
	c->dict_len = c->ndata_pages = 0;
	c->has_minmax = c->minmax_exact = false;
	if (l->dict)
		max = u32_max(nrows, d);
	if (l->dict && max < PQ_INT_DICT_LIMIT) {
		struct pq_column_data ints = { .values = d->values, .valid = d->valid };

		err = pq_dict__reserve(s, max + 1);
		if (!err)
			err = pq_dict__encode_strings(s, o, l, nrows, &ints, c, &ndict, max + 1);
	} else if (l->type != PQ_STRING && l->type != PQ_STRING_LIST) {
		return encode_plain(s, o, l, nrows, d, c);
	} else {
		err = pq_dict__reserve(s, d->dict->n);
		if (!err && l->type == PQ_STRING)
			err = pq_dict__encode_strings(s, o, l, nrows, d, c, &ndict, d->dict->n);
		else if (!err)
			err = pq_dict__encode_lists(s, o, l, nrows, d, c, &ndict);
	}
	/* leave remap all-zero for the next chunk, whatever happened */
	for (uint32_t i = 0; i < ndict; i++)
		s->remap[s->order[i]] = 0;
	return err;
}
