/* Folded stacks, one line per distinct stack: "proc;root;...;leaf weight", the input of
 * FlameGraph's flamegraph.pl and inferno.  Kernel frames carry the "_[k]" suffix that
 * stackcollapse-perf gives them (flamegraph.pl --color=java colours them). */
#include <errno.h>
#include <stdio.h>

#include "common/strbuf.h"

#include "export/export.h"

/* ';' separates frames and a newline ends the line: neither may appear in a name. */
static void put_frame(struct strbuf *b, const struct ex_frame *f)
{
	for (const char *s = f->name; *s; s++) {
		char c = *s == ';' ? ':' : *s == '\n' || *s == '\r' ? ' ' : *s;

		strbuf__add(b, &c, 1);
	}
	if (f->kernel)
		strbuf__add(b, "_[k]", 4);
}

void export__folded_stack(const struct ex_profile *p, const struct ex_stack *st, struct strbuf *b)
{
	for (uint32_t k = 0; k < st->n; k++) {
		if (k)
			strbuf__add(b, ";", 1);
		put_frame(b, &p->frames[st->frames[k]]);
	}
}

int export__folded(const struct ex_profile *p, FILE *out)
{
	struct strbuf b = { 0 };
	int err;

	for (uint64_t i = 0; i < p->nstacks; i++) {
		/* Off-CPU time in microseconds, as offcputime -f writes it. */
		uint64_t w = p->by_ns ? (p->stacks[i].weight + 500) / 1000 : p->stacks[i].weight;

		if (!w)
			continue;
		b.len = 0;
		export__folded_stack(p, &p->stacks[i], &b);
		if (b.err)
			break;
		fwrite(b.s, 1, b.len, out);
		fprintf(out, " %llu\n", (unsigned long long)w);
	}
	err = b.err;
	strbuf__free(&b);
	return err ? err : ferror(out) ? -EIO : 0;
}
