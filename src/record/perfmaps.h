/* Copies of the traced processes' JIT maps (/tmp/perf-PID.map) into the spool while the
 * processes live: runtimes write them as they compile and may delete them at exit. */
#ifndef PROBEX_RECORD_PERFMAPS_H
#define PROBEX_RECORD_PERFMAPS_H

struct perfmaps;
struct spool_writer;

int perfmaps__new(struct perfmaps **pm);
void perfmaps__free(struct perfmaps *pm);
/* Append what is new in the map of every process in the traced map (a BPF hash of
 * tgids).  Cheap when there are none: one failed open per process. */
int perfmaps__poll(struct perfmaps *pm, int traced_fd, struct spool_writer *w);

#endif
