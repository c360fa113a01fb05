#include <stdio.h>
#include <time.h>

#include "common/rss.h"

const char *rss__mib(void)
{
	static __thread char buf[64];
	unsigned long rss = 0, hwm = 0, v;
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "VmRSS: %lu kB", &v) == 1)
			rss = v;
		else if (sscanf(line, "VmHWM: %lu kB", &v) == 1)
			hwm = v;
	}
	if (f)
		fclose(f);
	snprintf(buf, sizeof(buf), "RSS %lu MiB, peak %lu MiB", rss >> 10, hwm >> 10);
	return buf;
}

double rss__now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
