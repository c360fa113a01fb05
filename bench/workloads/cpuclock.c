/* cpuclock HZ COMMAND [ARG...]: runs COMMAND under one cpu-clock sampling event per CPU
 * at HZ, as probex opens them, with no program attached and no buffer: what the timer
 * interrupts alone cost at that frequency on this machine, a floor under every sampler's
 * overhead (on this VM's paravirtualized timer it is several percent at 1999 Hz). */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
	};
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	int status;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: cpuclock HZ COMMAND [ARG...]\n");
		return 2;
	}
	attr.sample_freq = strtoul(argv[1], NULL, 10);
	for (long cpu = 0; cpu < ncpus; cpu++)
		if (syscall(__NR_perf_event_open, &attr, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC) < 0) {
			perror("cpuclock: perf_event_open");
			return 1;
		}
	pid = fork();
	if (pid < 0) {
		perror("cpuclock: fork");
		return 1;
	}
	if (!pid) {
		execvp(argv[2], argv + 2);
		perror("cpuclock: exec");
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
