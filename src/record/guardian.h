/* A tiny process that outlives probex only to stop the traced tree if probex itself is
 * killed (SIGKILL, OOM): then nothing of the tree is left running unsupervised.
 *
 * It is forked early, while the BPF programs load (a fork of probex later, with the
 * programs loaded and its buffers mapped, costs ~6 ms before the command may start), and
 * armed once they are loaded: it is then sent the traced-process map and the links of
 * the fork and exit programs that keep the map current, so that they stay in place as
 * long as it needs them.  It then waits on its socket and on a pidfd of probex: a 'D'
 * byte means probex finished normally; probex gone without it means it died, and every
 * traced process is thawed (--lossless) and SIGKILLed. */
#ifndef PROBEX_RECORD_GUARDIAN_H
#define PROBEX_RECORD_GUARDIAN_H

#define GUARDIAN_MAX_FDS 4

/* Start the guardian (not a child of probex: call before becoming a subreaper).  Returns
 * the socket to it or a negative errno.  Safe to call from a thread beside others. */
int guardian__start(void);
/* Hand it the traced-process map (fds[0]) and the descriptors to hold, and --lossless's
 * cgroup.freeze (else -1): it thaws the tree before stopping it.  0 or -errno. */
int guardian__arm(int fd, const int *fds, int n, int freeze_fd);
/* Normal end: tell the guardian to leave the tree alone, and close the socket. */
void guardian__release(int fd);

#endif
