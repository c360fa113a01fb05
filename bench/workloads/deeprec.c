/* CPU-bound at the bottom of a 100-deep recursion (~240-byte frames, 24 KiB of stack),
 * built -O2 -fomit-frame-pointer: a fixed amount of work (ITERS, default 1200), so traced
 * and untraced runs do the same work and their wall times compare. */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void leaf(unsigned long n)
{
	unsigned long s = sink;

	for (unsigned long i = 0; i < n; i++)
		s = s * 6364136223846793005ul + i;
	sink = s;
}

__attribute__((noinline)) void rec(int depth, unsigned long n)
{
	volatile char pad[224];

	pad[depth % sizeof(pad)] = (char)depth;
	if (depth > 1)
		rec(depth - 1, n);
	else
		leaf(n);
	sink += pad[(depth + 1) % sizeof(pad)];
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 1200;

	for (int i = 0; i < iters; i++)
		rec(100, 1000000);
	return 0;
}
