#include <stdio.h>
#include <time.h>

#include "common/progress.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void draw(struct progress *p, double t)
{
	double dt = t - p->phase_start;

	p->last_draw = t;
	fprintf(stderr, "\rprobex %s: [%d/%d] %s", p->what, p->step, p->steps, p->phase);
	if (p->rows)
		fprintf(stderr, ": %llu rows (%.0f/s)", (unsigned long long)p->rows,
			dt > 0 ? (double)p->rows / dt : 0);
	fputs("...\033[K", stderr);
}

void progress__init(struct progress *p, bool on, const char *what, int steps)
{
	*p = (struct progress){ .on = on, .what = what, .steps = steps };
}

void progress__phase(struct progress *p, const char *phase)
{
	if (!p || !p->on)
		return;
	p->phase = phase;
	p->step++;
	p->rows = 0;
	p->phase_start = now();
	draw(p, p->phase_start);
}

void progress__rows(struct progress *p, uint64_t n)
{
	double t;

	if (!p || !p->on)
		return;
	p->rows += n;
	t = now();
	if (t - p->last_draw >= 0.2)
		draw(p, t);
}

void progress__done(struct progress *p)
{
	if (p && p->on)
		fputs("\r\033[K", stderr);
}
