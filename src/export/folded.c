/* Folded stacks, one line per distinct stack: "proc;root;...;leaf weight", the input of
 * FlameGraph's flamegraph.pl and inferno.  Kernel frames carry the "_[k]" suffix that
 * stackcollapse-perf gives them (flamegraph.pl --color=java colours them). */
#include <errno.h>
#include <stdio.h>

#include "export/export.h"

/* ';' separates frames and a newline ends the line: neither may appear in a name. */
static void put_frame(FILE *out, const struct ex_frame *f)
{
	for (const char *s = f->name; *s; s++)
		fputc(*s == ';' ? ':' : *s == '\n' || *s == '\r' ? ' ' : *s, out);
	if (f->kernel)
		fputs("_[k]", out);
}

int export__folded(const struct ex_profile *p, FILE *out)
{
	for (uint64_t i = 0; i < p->nstacks; i++) {
		const struct ex_stack *st = &p->stacks[i];
		/* Off-CPU time in microseconds, as offcputime -f writes it. */
		uint64_t w = p->by_ns ? (st->weight + 500) / 1000 : st->weight;

		if (!w)
			continue;

		for (uint32_t k = 0; k < st->n; k++) {
			if (k)
				fputc(';', out);
			put_frame(out, &p->frames[st->frames[k]]);
		}
		fprintf(out, " %llu\n", (unsigned long long)w);
	}
	return ferror(out) ? -EIO : 0;
}
