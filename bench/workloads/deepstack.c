/* CPU-bound with deep frame-pointer stacks: recursion 60 frames deep through a few
 * distinct functions, burning CPU at the leaves for about SECONDS (default 2). */
#include <stdlib.h>
#include <time.h>

static volatile double sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void leaf_work(void)
{
	for (int i = 0; i < 20000; i++)
		sink = sink * 1.000001 + 1e-7;
}

__attribute__((noinline)) static void level_b(int depth);

__attribute__((noinline)) static void level_a(int depth)
{
	if (depth == 0)
		leaf_work();
	else
		level_b(depth - 1);
	sink += 1;
}

__attribute__((noinline)) static void level_b(int depth)
{
	if (depth == 0)
		leaf_work();
	else
		level_a(depth - 1);
	sink += 2;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0, end = now() + secs;

	while (now() < end)
		level_a(60);
	return 0;
}
