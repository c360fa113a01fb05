/* A tiny process that outlives probex only to stop the traced tree if probex itself is
 * killed (SIGKILL, OOM): then nothing of the tree is left running unsupervised.
 *
 * It holds a copy of the traced-process map (kept current by the still-attached fork
 * and exit programs, whose descriptors it also holds) and waits on a pipe: a 'D' byte
 * means probex finished normally; end-of-file without it means probex died, and every
 * traced process is SIGKILLed. */
#ifndef PROBEX_RECORD_GUARDIAN_H
#define PROBEX_RECORD_GUARDIAN_H

/* Start the guardian (not a child of probex: call before becoming a subreaper).
 * Returns the pipe's write end or a negative errno. */
int guardian__start(int traced_map_fd);
/* Normal end: tell the guardian to leave the tree alone, and close the pipe. */
void guardian__release(int fd);

#endif
