/* pc_work(a, b) called N times (default 1M), the loop timed from inside: `ns_per_call=`
 * is what a probe on pc_work adds to, with the process's start and end left out.
 * pc_f0 .. pc_f8 are more functions to attach to (never called). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) long pc_work(long a, long b)
{
	__asm__ volatile("" ::: "memory");
	return a + b;
}

#define F(n) __attribute__((noinline, used)) long pc_f##n(long a) { __asm__ volatile("" ::: "memory"); return a + n; }
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8)

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, sum = 0;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		sum += pc_work(i % 64, i % 7);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("calls=%ld\nsum=%ld\nns_per_call=%.1f\n", n, sum,
	       ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (double)n);
	return 0;
}
