/* Python frames in user stacks: the code objects and interpreters the recorder spooled
 * (SPOOL_PYCODE), each record's Python frames put in place of the interpreter frames that
 * ran them, and their labels, "QUALNAME (FILE:LINE)".
 *
 * In a merged stack a Python frame is a value no address can be (PYFRAME_TAG set): the
 * code object's index here and the line, so that stacks of the same lines dedup and a
 * label depends only on the value. */
#ifndef PROBEX_FINALIZE_PYFRAMES_H
#define PROBEX_FINALIZE_PYFRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "common/strbuf.h"

#define PYFRAME_TAG	(1ull << 62)
#define PYFRAME_MODULE	"python"	/* a Python frame's stack_modules entry */

struct pyframes;
struct rec_hdr;

struct pyframes *pyframes__new(void);
void pyframes__free(struct pyframes *p);
/* One SPOOL_PYCODE item (pass 1); malformed ones are counted and skipped. */
int pyframes__add_item(struct pyframes *p, const void *data, uint32_t len);
/* After the last item: sort for lookups. */
void pyframes__build(struct pyframes *p);
bool pyframes__empty(const struct pyframes *p);
/* Merge the Python frames of the record (len bytes, as spooled) into its user stack
 * frames[0..*n) (leaf first; room for max): the interpreter's eval frames replaced by the
 * Python frames each ran.  Records without Python frames are left as they are. */
void pyframes__merge(struct pyframes *p, const struct rec_hdr *h, uint32_t len, uint64_t *frames,
		     uint32_t *n, uint32_t max);

static inline bool pyframes__is(uint64_t frame)
{
	return (frame >> 62) == 1;
}

/* A frame's label as a trace's symbol data kept it (probex resymbolize: the code objects
 * are gone); pyframes__build sorts them. */
int pyframes__restore(struct pyframes *p, uint64_t frame, const char *label);
/* The label of a merged Python frame. */
void pyframes__label(const struct pyframes *p, uint64_t frame, struct strbuf *out);
/* Counters for probex.symbolize-like logging: frames merged, marked unreadable. */
void pyframes__counts(const struct pyframes *p, uint64_t *merged, uint64_t *unnamed);

#endif
