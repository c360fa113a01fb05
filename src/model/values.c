/* A trace's a and b values (see scan.h), read into a model built without them. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bigmem.h"
#include "common/log.h"
#include "model/load.h"
#include "model/scan_priv.h"
#include "model/sink.h"

struct values {
	struct scanner sc;
	const uint32_t *rn_of;		/* file row -> model row */
	uint64_t n;
	int32_t *a32;
	uint8_t *flags;
};

enum vcol { V_ROW, V_TYPE, V_FIRST };	/* then the value columns, C_COUNT.. C_EXIT */

static void values_sink(duckdb_function_info info, duckdb_data_chunk chunk, duckdb_vector out)
{
	struct values *vs = duckdb_scalar_function_get_extra_info(info);
	struct scanner *sc = &vs->sc;
	struct side_batch side = { 0 };
	idx_t n = duckdb_data_chunk_get_size(chunk);
	bool *res = duckdb_vector_get_data(out);
	void *d[C__COUNT];
	uint64_t *v[C__COUNT];

	for (idx_t c = 0; c < V_FIRST + C_EXIT - C_COUNT + 1; c++) {
		duckdb_vector vec = duckdb_data_chunk_get_vector(chunk, c);
		int k = c == V_ROW ? C_ROW : c == V_TYPE ? C_TYPE : (int)(c - V_FIRST + C_COUNT);

		d[k] = duckdb_vector_get_data(vec);
		v[k] = duckdb_vector_get_validity(vec);
	}
	for (idx_t i = 0; i < n; i++) {
		uint64_t row = ((uint64_t *)d[C_ROW])[i], rn;
		uint16_t code = ((uint16_t *)d[C_TYPE])[i];
		int ca = sc->a_col[code], cb = sc->b_col[code];

		res[i] = true;
		if (row >= vs->n) {
			duckdb_scalar_function_set_error(info, "row count changed while reading");
			return;
		}
		rn = vs->rn_of[row];
		vs->flags[rn] |= scan__ab(sc, &side, d, v, i, ca, cb, vs->a32, rn);
	}
	scan__side_flush(sc, &side);
}

static int run_values(duckdb_connection con, const struct trace_file *tf, const char *enum_type,
		      struct values *vs)
{
	static const duckdb_type types[] = {
		DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_USMALLINT, DUCKDB_TYPE_UBIGINT, DUCKDB_TYPE_BIGINT,
		DUCKDB_TYPE_UBIGINT, DUCKDB_TYPE_BIGINT, DUCKDB_TYPE_UBIGINT, DUCKDB_TYPE_UBIGINT,
		DUCKDB_TYPE_BIGINT,
	};
	struct sink_spec spec = { "probex_values", values_sink, vs, types, 9, false, DUCKDB_TYPE_BOOLEAN };
	char name[48], *sql;
	int err;

	if (sink__register(con, &spec, name, sizeof(name))) {
		log__error("%s: cannot register %s", tf->path, name);
		return -EIO;
	}
	if (asprintf(&sql, "SELECT count(%s(e.file_row_number, enum_code(e.event_type::%s)::USMALLINT, %s)) "
			   "FROM read_parquet(%s, file_row_number = true) e",
		     name, enum_type, VALUE_COLS, tf->literal) < 0)
		return -ENOMEM;
	err = sink__run(con, sql, tf->path, NULL);
	free(sql);
	for (int k = SIDE_A; !err && k <= SIDE_B; k++)
		err = scan__side_sort(&vs->sc.r->side[k]);
	return !err && vs->sc.side_failed ? -ENOMEM : err;
}

static void take_side_part(struct trace_side *sd, uint64_t *n, uint32_t **rns, uint64_t **vals)
{
	free(*rns);
	free(*vals);
	*n = sd->n;
	*rns = sd->row;
	*vals = sd->val;
	memset(sd, 0, sizeof(*sd));
}

int model__load_values(duckdb_connection con, const struct trace_file *tf, const char *enum_type,
		       struct model *m)
{
	struct trace_rows sides = { 0 };
	struct values vs = { .sc = { .tf = tf, .r = &sides, .side_lock = PTHREAD_MUTEX_INITIALIZER },
			     .n = m->n };
	uint32_t *rn_of = bigmem__alloc((m->n ? m->n : 1) * sizeof(*rn_of));
	int err = -ENOMEM;

	vs.a32 = bigmem__alloc((m->n ? m->n : 1) * sizeof(*vs.a32));
	vs.flags = bigmem__alloc(m->n ? m->n : 1);
	if (!rn_of || !vs.a32 || !vs.flags)
		goto cleanup;
	for (uint64_t rn = 0; rn < m->n; rn++)
		rn_of[model__file_row(m, rn)] = (uint32_t)rn;
	memset(vs.a32, 0, m->n * sizeof(*vs.a32));
	memcpy(vs.flags, m->flags, m->n);
	vs.rn_of = rn_of;
	for (unsigned int c = 0; c < m->ntypes; c++)
		scan__type_slots(&vs.sc, c, m->type_event[c], m->type_names[c]);
	if (m->n && (err = run_values(con, tf, enum_type, &vs)))
		goto cleanup;
	/* No request reads a or b before this returns; the stack side of a diff may read
	 * flags (ROW_LAT) meanwhile: the old array stays until the model is freed. */
	free(m->a32);
	m->a32 = vs.a32;
	m->flags_old = m->flags;
	__atomic_store_n(&m->flags, vs.flags, __ATOMIC_RELEASE);
	take_side_part(&sides.side[SIDE_A], &m->na_big, &m->a_big_rn, &m->a_big);
	take_side_part(&sides.side[SIDE_B], &m->nb, &m->b_rn, &m->b_val);
	vs.a32 = NULL;
	vs.flags = NULL;
	err = 0;
cleanup:
	free(rn_of);
	free(vs.a32);
	free(vs.flags);
	trace_rows__free(&sides);
	return err;
}
