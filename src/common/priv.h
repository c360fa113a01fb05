/* Privileges under sudo: who invoked us, acting with that user's filesystem identity for
 * a moment, and becoming that user for good.
 *
 * probex needs root only for the kernel side of a recording (BPF, perf_event_open,
 * /proc/kallsyms, BTF).  Every path the user named is created, renamed and unlinked with
 * the user's identity, so probex can do nothing there the user could not do.  As plain
 * root (no SUDO_UID/SUDO_GID) every function here is a no-op. */
#ifndef PROBEX_COMMON_PRIV_H
#define PROBEX_COMMON_PRIV_H

#include <stdbool.h>
#include <sys/types.h>

#define PRIV_MAX_GROUPS 256

struct priv_target {
	bool valid;	/* running as root under sudo with a usable SUDO_UID/SUDO_GID */
	uid_t uid;
	gid_t gid;
	int ngroups;	/* the user's supplementary groups (from the user database) */
	gid_t groups[PRIV_MAX_GROUPS];
	char user[64];
	char home[256];
};

/* The identity this thread had before priv__fs_enter. */
struct priv_fs {
	bool entered;
	uid_t fsuid;
	gid_t fsgid;
	int ngroups;
	gid_t groups[PRIV_MAX_GROUPS];
};

/* Resolve the sudo invoker.  Returns 0 (target->valid false when not under sudo) or
 * -EINVAL with a message already printed when SUDO_UID/SUDO_GID are inconsistent. */
int priv__resolve(struct priv_target *target);

/* Become target permanently (real, effective and saved ids; the user's groups; no
 * capability), verify that root cannot be regained, and give the environment the user's
 * HOME/USER/LOGNAME.  Idempotent.  Negative errno on failure. */
int priv__drop(const struct priv_target *target);

/* Become target (ids and groups as priv__drop) but keep the capabilities caps[0..n)
 * effective in the calling thread only (other threads keep none): what the recorder
 * needs while the command runs (CAP_BPF for its maps on kernels before 6.5, CAP_KILL for
 * set-uid programs in the tree).  priv__drop later clears them.  Negative errno. */
int priv__drop_keep_caps(const struct priv_target *target, const int *caps, int n);

/* Resolve, then drop: what every subcommand does first.  Prints why on failure. */
int priv__drop_to_invoker(void);

/* File system accesses of the calling thread use target's uid, gid and groups until
 * priv__fs_leave (setfsuid/setfsgid; the kernel drops the DAC-override capabilities while
 * the fs uid is not 0).  The groups are process-wide: call with no other thread that
 * opens files.  Negative errno on failure, with the old identity restored. */
int priv__fs_enter(const struct priv_target *target, struct priv_fs *saved);
void priv__fs_leave(struct priv_fs *saved);

#endif
