#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "query/result.h"

static bool is_number(duckdb_type t)
{
	switch (t) {
	case DUCKDB_TYPE_TINYINT: case DUCKDB_TYPE_SMALLINT: case DUCKDB_TYPE_INTEGER:
	case DUCKDB_TYPE_BIGINT: case DUCKDB_TYPE_UTINYINT: case DUCKDB_TYPE_USMALLINT:
	case DUCKDB_TYPE_UINTEGER: case DUCKDB_TYPE_UBIGINT: case DUCKDB_TYPE_HUGEINT:
	case DUCKDB_TYPE_UHUGEINT: case DUCKDB_TYPE_FLOAT: case DUCKDB_TYPE_DOUBLE:
	case DUCKDB_TYPE_DECIMAL:
		return true;
	default:
		return false;
	}
}

static bool is_nested(duckdb_type t)
{
	return t == DUCKDB_TYPE_LIST || t == DUCKDB_TYPE_STRUCT || t == DUCKDB_TYPE_ARRAY ||
	       t == DUCKDB_TYPE_MAP;
}

/* A string inside a nested value: quoted in JSON always, in text when DuckDB would. */
static void add_str(struct strbuf *b, const char *s, size_t n, bool json)
{
	char *tmp;

	if (json) {
		tmp = strndup(s, n);
		if (!tmp) {
			b->err = -ENOMEM;
			return;
		}
		strbuf__add_json_str(b, tmp);
		free(tmp);
	} else if (!n || strcspn(s, "[]{},:' ") < n) {
		strbuf__add(b, "'", 1);
		for (size_t i = 0; i < n; i++)
			strbuf__add(b, s[i] == '\'' ? "''" : s + i, s[i] == '\'' ? 2 : 1);
		strbuf__add(b, "'", 1);
	} else {
		strbuf__add(b, s, n);
	}
}

/* The shortest of %.15g and %.17g that reads back the same; JSON has no inf or nan. */
static void add_double(struct strbuf *b, double v, bool json)
{
	char buf[32];

	if (json && !isfinite(v)) {
		strbuf__add(b, "null", 4);
		return;
	}
	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof(buf), "%.17g", v);
	strbuf__add(b, buf, strlen(buf));
}

/* A value of the less common types as DuckDB prints it. */
static duckdb_value other_value(duckdb_logical_type lt, void *data, idx_t row)
{
	duckdb_decimal d;

	switch (duckdb_get_type_id(lt)) {
	case DUCKDB_TYPE_DATE: return duckdb_create_date(((duckdb_date *)data)[row]);
	case DUCKDB_TYPE_TIME: return duckdb_create_time(((duckdb_time *)data)[row]);
	case DUCKDB_TYPE_TIMESTAMP: return duckdb_create_timestamp(((duckdb_timestamp *)data)[row]);
	case DUCKDB_TYPE_TIMESTAMP_TZ: return duckdb_create_timestamp_tz(((duckdb_timestamp *)data)[row]);
	case DUCKDB_TYPE_TIMESTAMP_S: return duckdb_create_timestamp_s(((duckdb_timestamp_s *)data)[row]);
	case DUCKDB_TYPE_TIMESTAMP_MS: return duckdb_create_timestamp_ms(((duckdb_timestamp_ms *)data)[row]);
	case DUCKDB_TYPE_TIMESTAMP_NS: return duckdb_create_timestamp_ns(((duckdb_timestamp_ns *)data)[row]);
	case DUCKDB_TYPE_INTERVAL: return duckdb_create_interval(((duckdb_interval *)data)[row]);
	case DUCKDB_TYPE_HUGEINT: return duckdb_create_hugeint(((duckdb_hugeint *)data)[row]);
	case DUCKDB_TYPE_UHUGEINT: return duckdb_create_uhugeint(((duckdb_uhugeint *)data)[row]);
	case DUCKDB_TYPE_UUID: return duckdb_create_uuid(((duckdb_uhugeint *)data)[row]);
	case DUCKDB_TYPE_DECIMAL:
		d.width = duckdb_decimal_width(lt);
		d.scale = duckdb_decimal_scale(lt);
		d.value = (duckdb_hugeint){ 0, 0 };
		switch (duckdb_decimal_internal_type(lt)) {
		case DUCKDB_TYPE_SMALLINT: d.value.lower = (uint64_t)(int64_t)((int16_t *)data)[row]; break;
		case DUCKDB_TYPE_INTEGER: d.value.lower = (uint64_t)(int64_t)((int32_t *)data)[row]; break;
		case DUCKDB_TYPE_BIGINT: d.value.lower = (uint64_t)((int64_t *)data)[row]; break;
		default: d.value = ((duckdb_hugeint *)data)[row]; return duckdb_create_decimal(d);
		}
		d.value.upper = (int64_t)d.value.lower < 0 ? -1 : 0;
		return duckdb_create_decimal(d);
	default:
		return NULL;
	}
}

static void add_other(struct strbuf *b, duckdb_logical_type lt, void *data, idx_t row, bool json)
{
	duckdb_type t = duckdb_get_type_id(lt);
	duckdb_value v = NULL;
	char *s = NULL;

	if (t == DUCKDB_TYPE_ENUM) {
		idx_t k = duckdb_enum_internal_type(lt) == DUCKDB_TYPE_UTINYINT ? ((uint8_t *)data)[row] :
			  duckdb_enum_internal_type(lt) == DUCKDB_TYPE_USMALLINT ? ((uint16_t *)data)[row] :
			  ((uint32_t *)data)[row];

		s = duckdb_enum_dictionary_value(lt, k);
	} else if ((v = other_value(lt, data, row))) {
		s = duckdb_get_varchar(v);
		duckdb_destroy_value(&v);
	}
	if (!s) {
		add_str(b, "?", 1, json);
		return;
	}
	/* Numbers stay numbers in JSON; dates and such become strings. */
	if (json && t != DUCKDB_TYPE_HUGEINT && t != DUCKDB_TYPE_UHUGEINT && t != DUCKDB_TYPE_DECIMAL)
		strbuf__add_json_str(b, s);
	else
		strbuf__add(b, s, strlen(s));
	duckdb_free(s);
}

/* One scalar of a vector, as DuckDB would print it (JSON: strings quoted). */
static void add_scalar(struct strbuf *b, duckdb_logical_type lt, void *data, idx_t row, bool json,
		       bool top)
{
	duckdb_type t = duckdb_get_type_id(lt);
	duckdb_string_t *s;

	switch (t) {
	case DUCKDB_TYPE_BOOLEAN: strbuf__addf(b, "%s", ((bool *)data)[row] ? "true" : "false"); break;
	case DUCKDB_TYPE_TINYINT: strbuf__addf(b, "%d", ((int8_t *)data)[row]); break;
	case DUCKDB_TYPE_SMALLINT: strbuf__addf(b, "%d", ((int16_t *)data)[row]); break;
	case DUCKDB_TYPE_INTEGER: strbuf__addf(b, "%d", ((int32_t *)data)[row]); break;
	case DUCKDB_TYPE_BIGINT: strbuf__addf(b, "%lld", (long long)((int64_t *)data)[row]); break;
	case DUCKDB_TYPE_UTINYINT: strbuf__addf(b, "%u", ((uint8_t *)data)[row]); break;
	case DUCKDB_TYPE_USMALLINT: strbuf__addf(b, "%u", ((uint16_t *)data)[row]); break;
	case DUCKDB_TYPE_UINTEGER: strbuf__addf(b, "%u", ((uint32_t *)data)[row]); break;
	case DUCKDB_TYPE_UBIGINT: strbuf__addf(b, "%llu", (unsigned long long)((uint64_t *)data)[row]); break;
	case DUCKDB_TYPE_FLOAT: add_double(b, ((float *)data)[row], json); break;
	case DUCKDB_TYPE_DOUBLE: add_double(b, ((double *)data)[row], json); break;
	case DUCKDB_TYPE_VARCHAR:
	case DUCKDB_TYPE_BLOB:
		s = (duckdb_string_t *)data + row;
		if (top && !json)	/* a top-level string is printed as it is */
			strbuf__add(b, duckdb_string_t_data(s), duckdb_string_t_length(*s));
		else
			add_str(b, duckdb_string_t_data(s), duckdb_string_t_length(*s), json);
		break;
	default:
		add_other(b, lt, data, row, json);
	}
}

static void add_nested(struct strbuf *b, duckdb_vector v, duckdb_logical_type lt, idx_t row, bool json);

static void add_value(struct strbuf *b, duckdb_vector v, duckdb_logical_type lt, idx_t row, bool json,
		      bool top)
{
	uint64_t *valid = duckdb_vector_get_validity(v);

	if (valid && !duckdb_validity_row_is_valid(valid, row))
		strbuf__add(b, json ? "null" : "NULL", 4);
	else if (is_nested(duckdb_get_type_id(lt)))
		add_nested(b, v, lt, row, json);
	else
		add_scalar(b, lt, duckdb_vector_get_data(v), row, json, top);
}

static void add_list(struct strbuf *b, duckdb_vector v, duckdb_logical_type lt, idx_t row, bool json)
{
	duckdb_list_entry *e = (duckdb_list_entry *)duckdb_vector_get_data(v) + row;
	duckdb_vector child = duckdb_list_vector_get_child(v);
	duckdb_logical_type ct = duckdb_list_type_child_type(lt);

	strbuf__add(b, "[", 1);
	for (idx_t i = 0; i < e->length; i++) {
		if (i)
			strbuf__add(b, json ? "," : ", ", json ? 1 : 2);
		add_value(b, child, ct, e->offset + i, json, false);
	}
	strbuf__add(b, "]", 1);
	duckdb_destroy_logical_type(&ct);
}

static void add_struct(struct strbuf *b, duckdb_vector v, duckdb_logical_type lt, idx_t row, bool json)
{
	idx_t n = duckdb_struct_type_child_count(lt);

	strbuf__add(b, "{", 1);
	for (idx_t i = 0; i < n; i++) {
		duckdb_logical_type ct = duckdb_struct_type_child_type(lt, i);
		char *name = duckdb_struct_type_child_name(lt, i);

		if (i)
			strbuf__add(b, json ? "," : ", ", json ? 1 : 2);
		if (json)
			strbuf__add_json_str(b, name);
		else
			add_str(b, name, strlen(name), false);
		strbuf__add(b, json ? ":" : ": ", json ? 1 : 2);
		add_value(b, duckdb_struct_vector_get_child(v, i), ct, row, json, false);
		duckdb_free(name);
		duckdb_destroy_logical_type(&ct);
	}
	strbuf__add(b, "}", 1);
}

static void add_nested(struct strbuf *b, duckdb_vector v, duckdb_logical_type lt, idx_t row, bool json)
{
	/* A MAP is a list of {key, value} structs in DuckDB's vectors. */
	if (duckdb_get_type_id(lt) == DUCKDB_TYPE_STRUCT)
		add_struct(b, v, lt, row, json);
	else if (duckdb_get_type_id(lt) == DUCKDB_TYPE_ARRAY)
		add_str(b, "?", 1, json);
	else
		add_list(b, v, lt, row, json);
}

/* The cells of a result as strings, row-major; NULL cells stay NULL pointers. */
struct cells {
	idx_t rows, cols;
	char **s;
	duckdb_type *type;
};

static void cells_free(struct cells *c)
{
	for (idx_t i = 0; c->s && i < c->rows * c->cols; i++)
		free(c->s[i]);
	free(c->s);
	free(c->type);
}

/* A cell as text (JSON text in JSON mode); NULL for a NULL cell, "" when out of memory. */
static char *cell_text(duckdb_data_chunk chunk, idx_t c, idx_t r, bool json, bool *is_null)
{
	duckdb_vector v = duckdb_data_chunk_get_vector(chunk, c);
	uint64_t *valid = duckdb_vector_get_validity(v);
	duckdb_logical_type lt;
	struct strbuf b = { 0 };

	*is_null = valid && !duckdb_validity_row_is_valid(valid, r);
	if (*is_null)
		return NULL;
	lt = duckdb_vector_get_column_type(v);
	add_value(&b, v, lt, r, json, true);
	duckdb_destroy_logical_type(&lt);
	if (b.err || !b.s) {
		strbuf__free(&b);
		return strdup("");
	}
	return b.s;
}

/* Read n fetched chunks of a result, the first holding row row0 of the result. */
static int cells_read(struct cells *c, duckdb_result *res, duckdb_data_chunk *chunks, idx_t n, bool json)
{
	idx_t row = 0;

	c->rows = 0;
	c->cols = duckdb_column_count(res);
	for (idx_t ch = 0; ch < n; ch++)
		c->rows += duckdb_data_chunk_get_size(chunks[ch]);
	c->s = calloc(c->rows * c->cols + 1, sizeof(char *));
	c->type = calloc(c->cols + 1, sizeof(duckdb_type));
	if (!c->s || !c->type)
		return -ENOMEM;
	for (idx_t k = 0; k < c->cols; k++)
		c->type[k] = duckdb_column_type(res, k);
	for (idx_t ch = 0; ch < n; ch++) {
		idx_t rows = duckdb_data_chunk_get_size(chunks[ch]);

		for (idx_t r = 0; r < rows; r++, row++)
			for (idx_t k = 0; k < c->cols; k++) {
				bool is_null;

				c->s[row * c->cols + k] = cell_text(chunks[ch], k, r, json, &is_null);
				if (!is_null && !c->s[row * c->cols + k])
					return -ENOMEM;
			}
	}
	return 0;
}

/* Up to max chunks of a (streaming) result; the count fetched. */
static idx_t fetch(duckdb_result *res, duckdb_data_chunk *chunks, idx_t max)
{
	idx_t n = 0;

	while (n < max && (chunks[n] = duckdb_fetch_chunk(*res)))
		n++;
	return n;
}

static void destroy_chunks(duckdb_data_chunk *chunks, idx_t n)
{
	for (idx_t i = 0; i < n; i++)
		duckdb_destroy_data_chunk(&chunks[i]);
}

/* Display width: UTF-8 continuation bytes take no column. */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void pad(FILE *out, size_t n)
{
	while (n--)
		fputc(' ', out);
}

/* Column widths from the header and the rows of c. */
static void table_widths(const struct cells *c, duckdb_result *res, bool header, size_t *w)
{
	for (idx_t k = 0; k < c->cols; k++) {
		w[k] = header ? width(duckdb_column_name(res, k)) : 0;
		for (idx_t r = 0; r < c->rows; r++) {
			const char *s = c->s[r * c->cols + k];
			size_t x = s ? width(s) : 4;

			w[k] = x > w[k] ? x : w[k];
		}
	}
}

/* s in w columns, right-aligned for numbers; a wider s (a later chunk) overflows. */
static void table_cell(FILE *out, const char *s, size_t w, bool right, bool last)
{
	size_t n = width(s), fill = n < w ? w - n : 0;

	if (right)
		pad(out, fill);
	fputs(s, out);
	if (!right && !last)
		pad(out, fill);
	fputs(last ? "\n" : "  ", out);
}

static void print_table(const struct cells *c, duckdb_result *res, FILE *out, bool header,
			const size_t *w)
{
	for (idx_t k = 0; header && k < c->cols; k++)
		table_cell(out, duckdb_column_name(res, k), w[k], is_number(c->type[k]), k + 1 == c->cols);
	for (idx_t k = 0; header && k < c->cols; k++) {
		for (size_t i = 0; i < w[k]; i++)
			fputc('-', out);
		fputs(k + 1 == c->cols ? "\n" : "  ", out);
	}
	for (idx_t r = 0; r < c->rows; r++)
		for (idx_t k = 0; k < c->cols; k++) {
			const char *s = c->s[r * c->cols + k];

			table_cell(out, s ? s : "NULL", w[k], is_number(c->type[k]), k + 1 == c->cols);
		}
}

static void csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void print_sep(const struct cells *c, duckdb_result *res, FILE *out, bool header, bool csv)
{
	char sep = csv ? ',' : '\t';

	for (idx_t k = 0; header && k < c->cols; k++) {
		if (k)
			fputc(sep, out);
		if (csv)
			csv_field(out, duckdb_column_name(res, k));
		else
			fputs(duckdb_column_name(res, k), out);
	}
	if (header)
		fputc('\n', out);
	for (idx_t r = 0; r < c->rows; r++) {
		for (idx_t k = 0; k < c->cols; k++) {
			const char *s = c->s[r * c->cols + k];

			if (k)
				fputc(sep, out);
			if (csv)
				csv_field(out, s ? s : "");	/* CSV: NULL is the empty field */
			else
				fputs(s ? s : "NULL", out);
		}
		fputc('\n', out);
	}
}

/* Cells are JSON text already (cell_text in JSON mode). */
static void print_json(const struct cells *c, duckdb_result *res, FILE *out, bool first)
{
	struct strbuf b = { 0 };

	for (idx_t r = 0; r < c->rows; r++) {
		fputs(r || !first ? ",\n{" : "\n{", out);
		for (idx_t k = 0; k < c->cols; k++) {
			const char *s = c->s[r * c->cols + k];

			b.len = 0;
			if (k)
				strbuf__add(&b, ",", 1);
			strbuf__add_json_str(&b, duckdb_column_name(res, k));
			strbuf__add(&b, ":", 1);
			strbuf__add(&b, s ? s : "null", s ? strlen(s) : 4);
			if (b.s)
				fwrite(b.s, 1, b.len, out);
		}
		fputc('}', out);
	}
	strbuf__free(&b);
}

#define TABLE_WIDTH_CHUNKS 4	/* DuckDB chunks are 2048 rows */

/* A failed fetch of a streaming result leaves its error in the result. */
static int stream_error(duckdb_result *res)
{
	return duckdb_result_error(res) ? -EIO : 0;
}

static int print_table_chunks(duckdb_result *res, FILE *out, bool header)
{
	size_t *w = calloc(duckdb_column_count(res) + 1, sizeof(size_t));
	duckdb_data_chunk chunks[TABLE_WIDTH_CHUNKS];
	bool first = true;
	int err = w ? 0 : -ENOMEM;
	idx_t n;

	while (!err && ((n = fetch(res, chunks, first ? TABLE_WIDTH_CHUNKS : 1)) || first)) {
		struct cells c = { 0 };

		err = cells_read(&c, res, chunks, n, false);
		if (!err) {
			if (first)
				table_widths(&c, res, header, w);
			print_table(&c, res, out, header && first, w);
		}
		cells_free(&c);
		destroy_chunks(chunks, n);
		first = false;
		if (!n)
			break;
	}
	free(w);
	return err ? err : stream_error(res);
}

int result__print(duckdb_result *res, FILE *out, enum result_fmt fmt, bool header)
{
	duckdb_data_chunk chunk;
	idx_t row = 0;
	int err = 0;

	/* A chunk at a time, so a large result is never held as text all at once; the
	 * table takes its widths from the first TABLE_WIDTH_CHUNKS chunks. */
	if (fmt == RESULT_TABLE)
		return print_table_chunks(res, out, header);
	if (fmt == RESULT_JSON)
		fputc('[', out);
	else if (header)
		print_sep(&(struct cells){ .cols = duckdb_column_count(res) }, res, out, true,
			  fmt == RESULT_CSV);
	while (!err && fetch(res, &chunk, 1)) {
		struct cells c = { 0 };

		if (!(err = cells_read(&c, res, &chunk, 1, fmt == RESULT_JSON))) {
			if (fmt == RESULT_JSON)
				print_json(&c, res, out, row == 0);
			else
				print_sep(&c, res, out, false, fmt == RESULT_CSV);
		}
		row += c.rows;
		cells_free(&c);
		duckdb_destroy_data_chunk(&chunk);
	}
	if (fmt == RESULT_JSON)
		fputs(row ? "\n]\n" : "]\n", out);
	return err ? err : stream_error(res);
}
