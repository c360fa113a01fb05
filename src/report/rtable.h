/* The tables of `probex report`: typed columns filled row by row, printed either as
 * aligned text that fits a terminal width (durations and sizes in human units) or as
 * JSON (raw numbers: ns, bytes, fractions). */
#ifndef PROBEX_REPORT_RTABLE_H
#define PROBEX_REPORT_RTABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/json.h"

/* RC_DNS: a signed change of a duration ("+1.2ms"); RC_RATIO: new / base ("2.00x"). */
/* RC_JSON: JSON text, written as is. */
enum rcol_kind { RC_TEXT, RC_INT, RC_NS, RC_BYTES, RC_PCT, RC_DNS, RC_RATIO, RC_JSON };

/* A column without a name shows only in JSON (under json); one whose json is "" only in
 * text. */
struct rcol {
	const char *name;	/* header in text, key in JSON */
	enum rcol_kind kind;
	const char *json;	/* the JSON key when the header is not one */
};

struct rcell {
	bool null;
	char *s;		/* RC_TEXT, RC_JSON */
	int64_t v;		/* RC_INT, RC_NS, RC_BYTES */
	double d;		/* RC_PCT: a fraction, 0..1; RC_RATIO */
	bool mark;		/* rests on incomplete rows (rtable__mark) */
};

struct rtable {
	const char *key;	/* JSON key of the section */
	const char *title;
	const struct rcol *cols;
	int ncols;
	struct rcell *cells;
	size_t rows, cap;
	int col;		/* next cell of the current row */
	uint64_t left_out;	/* rows not shown (a top-N table) */
	const char *note;	/* text: printed under a table with marked cells */
	bool no_cut;		/* text: cells fit themselves (or are kept whole past width) */
	bool oom;
};

void rtable__init(struct rtable *t, const char *key, const char *title, const struct rcol *cols,
		  int ncols);
void rtable__free(struct rtable *t);
/* Start a row; then one call per column, in order. */
void rtable__row(struct rtable *t);
void rtable__str(struct rtable *t, const char *s);
void rtable__strn(struct rtable *t, const char *s, size_t n);
void rtable__int(struct rtable *t, int64_t v);
void rtable__pct(struct rtable *t, double fraction);
void rtable__ratio(struct rtable *t, double ratio);
void rtable__null(struct rtable *t);
/* The cell just added rests on incomplete rows: "*" after it in text, and its row gets
 * "incomplete": true in JSON. */
void rtable__mark(struct rtable *t);

/* Text: a title line, a header, the rows, in at most width columns (the widest text
 * column is cut to fit). */
void rtable__print(const struct rtable *t, FILE *out, int width);
/* JSON: "key": [ {col: value, ...}, ... ] into an open object. */
void rtable__json(const struct rtable *t, struct json *j);

/* "1.23ms"-style durations and "4.5MiB"-style sizes, at most 7 characters. */
void rtable__fmt_ns(char *buf, size_t size, int64_t ns);
void rtable__fmt_bytes(char *buf, size_t size, int64_t bytes);

#endif
