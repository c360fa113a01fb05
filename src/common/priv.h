/* Privilege handling under sudo: who invoked us, and becoming that user. */
#ifndef PROBEX_COMMON_PRIV_H
#define PROBEX_COMMON_PRIV_H

#include <stdbool.h>
#include <sys/types.h>

struct priv_target {
	bool valid;	/* running as root under sudo with a usable SUDO_UID/SUDO_GID */
	uid_t uid;
	gid_t gid;
	char user[64];
	char home[256];
};

/* Resolve the sudo invoker.  Returns 0 (target->valid false when not under sudo) or
 * -EINVAL with a message already printed when SUDO_UID/SUDO_GID are inconsistent. */
int priv__resolve(struct priv_target *target);

/* Become target permanently: supplementary groups from the user database (not cleared),
 * then gid, then uid; verified.  Negative errno on failure. */
int priv__drop(const struct priv_target *target);

/* Give a file we created as root to the invoking user. */
int priv__chown(const struct priv_target *target, const char *path);

#endif
