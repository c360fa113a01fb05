/* Copies of the traced processes' JIT maps (/tmp/perf-PID.map) into the spool while the
 * processes live: runtimes write them as they compile and may delete them at exit. */
#ifndef PROBEX_RECORD_PERFMAPS_H
#define PROBEX_RECORD_PERFMAPS_H

#include <stdint.h>
#include <sys/types.h>

struct perfmaps;
struct spool_writer;

/* uid: the command's user, the owner a map of a process that has exited must have. */
int perfmaps__new(struct perfmaps **pm, uid_t uid);
void perfmaps__free(struct perfmaps *pm);
/* Append what is new in the map of every process in the traced map (a BPF hash of
 * tgids).  Cheap when there are none: one failed open per process. */
int perfmaps__poll(struct perfmaps *pm, int traced_fd, struct spool_writer *w);
/* The same for one process that may have exited: a JVM writes its map at exit
 * (-XX:+DumpPerfMapAtExit), after its last poll.  Once the process is gone, its map must
 * belong to the command's user and be written since this recording began. */
int perfmaps__poll_one(struct perfmaps *pm, uint32_t tgid, struct spool_writer *w);

#endif
