/* Memory and time figures for the debug log of each loading step (what each one costs). */
#ifndef PROBEX_COMMON_RSS_H
#define PROBEX_COMMON_RSS_H

/* "RSS now, peak so far" in MiB, from /proc/self/status (a per-thread buffer). */
const char *rss__mib(void);
/* Seconds on the monotonic clock. */
double rss__now(void);

#endif
