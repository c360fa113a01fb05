#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/priv.h"

static int parse_id(const char *name, const char *s, unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > UINT_MAX || s[0] == '-') {
		log__error("invalid %s value '%s'", name, s);
		return -EINVAL;
	}
	*out = (unsigned int)v;
	return 0;
}

int priv__resolve(struct priv_target *t)
{
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");
	unsigned int uid, gid;
	struct passwd *pw;
	int err;

	memset(t, 0, sizeof(*t));
	if (geteuid() != 0 || (!su && !sg))
		return 0;
	if (!su || !sg) {
		log__error("running as root but SUDO_UID/SUDO_GID are inconsistent; both must be set to drop privileges");
		return -EINVAL;
	}
	err = parse_id("SUDO_UID", su, &uid);
	if (!err)
		err = parse_id("SUDO_GID", sg, &gid);
	if (err)
		return err;
	t->valid = true;
	t->uid = uid;
	t->gid = gid;
	pw = getpwuid(uid);
	if (pw) {
		snprintf(t->user, sizeof(t->user), "%s", pw->pw_name);
		snprintf(t->home, sizeof(t->home), "%s", pw->pw_dir);
	}
	return 0;
}

int priv__drop(const struct priv_target *t)
{
	if (!t->valid)
		return 0;
	/* Keep the user's own supplementary groups: clearing them (as the reference did)
	 * makes files the user can normally read unreadable to the traced command. */
	if (t->user[0] ? initgroups(t->user, t->gid) : setgroups(0, NULL))
		return -errno;
	if (setgid(t->gid) || setuid(t->uid))
		return -errno;
	if (geteuid() != t->uid || getegid() != t->gid || setuid(0) == 0)
		return -EPERM;
	return 0;
}

int priv__chown(const struct priv_target *t, const char *path)
{
	if (!t->valid)
		return 0;
	return chown(path, t->uid, t->gid) ? -errno : 0;
}
