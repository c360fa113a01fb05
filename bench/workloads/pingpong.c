/* Off-CPU-heavy workload: two threads pass a byte back and forth over two pipes, N round
 * trips (default 200000): every hop blocks one thread and wakes the other. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int ping[2], pong[2];
static long rounds = 200000;

static void *echo(void *arg)
{
	char c;

	for (long i = 0; i < rounds; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			exit(1);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	char c = 'x';

	if (argc > 1)
		rounds = atol(argv[1]);
	if (pipe(ping) || pipe(pong) || pthread_create(&t, NULL, echo, NULL))
		return 1;
	for (long i = 0; i < rounds; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
	pthread_join(t, NULL);
	return 0;
}
