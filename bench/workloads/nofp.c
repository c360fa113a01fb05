/* CPU-bound, built -O2 -fomit-frame-pointer like distribution code: a fixed amount of
 * work (ITERS, default 400) through a three-function chain and libc's qsort, so traced
 * and untraced runs do the same work and their wall times compare. */
#include <stdlib.h>

static volatile unsigned long sink;
static unsigned long v[8192];

__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

__attribute__((noinline)) static void leaf(unsigned long n)
{
	unsigned long s = sink;

	for (unsigned long i = 0; i < n; i++)
		s = s * 6364136223846793005ul + i;
	sink = s;
}

__attribute__((noinline)) static void mid(unsigned long n)
{
	leaf(n);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		v[i] = (i * 2654435761u) % 100003;
	qsort(v, sizeof(v) / sizeof(v[0]), sizeof(v[0]), cmp);
}

__attribute__((noinline)) static void top(unsigned long n)
{
	mid(n);
	sink++;
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 400;

	for (int i = 0; i < iters; i++)
		top(2000000);
	return 0;
}
