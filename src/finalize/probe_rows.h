/* --probe records as rows (finalize/rows.c asks): the event types the recording's probes
 * add (from the probex.probes metadata) and the probe_args column's JSON text. */
#ifndef PROBEX_FINALIZE_PROBE_ROWS_H
#define PROBEX_FINALIZE_PROBE_ROWS_H

#include <stdbool.h>
#include <stdint.h>

struct colbuf;
struct pq_dict;
struct probe_rows;
struct rg_writer;

/* meta: the session text ("key\tvalue" lines), NULL or without probes for none. */
int probe_rows__new(struct probe_rows **pr, const char *meta);
void probe_rows__free(struct probe_rows *pr);
/* The event_type dictionary: the format's types, then the probes'. */
const struct pq_dict *probe_rows__event_dict(const struct probe_rows *pr);
/* probe_args values so far (for a row group's snapshot). */
void probe_rows__args_dict(const struct probe_rows *pr, struct pq_dict *out);
/* The row of a REC_PROBE / REC_PROBE_STR record, or either row of a REC_PROBE_CALL (the
 * exit with exit_half): its columns, and its event type in *ev. */
int probe_rows__cols(struct probe_rows *pr, struct colbuf *c, const void *rec, uint32_t len,
		     bool exit_half, struct rg_writer *g, int *ev);

#endif
