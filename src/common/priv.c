#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/log.h"
#include "common/priv.h"

static int parse_id(const char *name, const char *s, unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v >= UINT_MAX || s[0] == '-') {
		log__error("invalid %s value '%s'", name, s);
		return -EINVAL;
	}
	*out = (unsigned int)v;
	return 0;
}

/* The user's groups as the login would set them; just the primary group when the user
 * is not in the database (a numeric SUDO_UID only). */
static void resolve_groups(struct priv_target *t)
{
	int n = PRIV_MAX_GROUPS;

	t->ngroups = 1;
	t->groups[0] = t->gid;
	if (!t->user[0])
		return;
	if (getgrouplist(t->user, t->gid, t->groups, &n) >= 0) {
		t->ngroups = n;
		return;
	}
	log__warn("user %s is in more than %d groups: acting with its primary group only", t->user,
		  PRIV_MAX_GROUPS);
	t->groups[0] = t->gid;
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
	/* sudo -u root, or root running sudo: nothing to drop to. */
	if (uid == 0)
		return 0;
	t->valid = true;
	t->uid = uid;
	t->gid = gid;
	pw = getpwuid(uid);
	if (pw) {
		snprintf(t->user, sizeof(t->user), "%s", pw->pw_name);
		snprintf(t->home, sizeof(t->home), "%s", pw->pw_dir);
	}
	resolve_groups(t);
	return 0;
}

static void set_user_env(const struct priv_target *t)
{
	/* sudo may leave root's HOME: DuckDB, caches and the traced command use the user's. */
	if (t->home[0])
		setenv("HOME", t->home, 1);
	if (t->user[0]) {
		setenv("USER", t->user, 1);
		setenv("LOGNAME", t->user, 1);
	}
}

static int set_caps(const int *caps, int n)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	for (int i = 0; i < n; i++) {
		d[caps[i] / 32].effective |= 1u << (caps[i] % 32);
		d[caps[i] / 32].permitted |= 1u << (caps[i] % 32);
	}
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

static int become(const struct priv_target *t)
{
	if (setgroups((size_t)t->ngroups, t->groups))
		return -errno;
	if (setresgid(t->gid, t->gid, t->gid) || setresuid(t->uid, t->uid, t->uid))
		return -errno;
	return 0;
}

int priv__drop(const struct priv_target *t)
{
	uid_t r, e, s;
	int err;

	if (!t->valid)
		return 0;
	if (getresuid(&r, &e, &s) == 0 && r == t->uid && e == t->uid && s == t->uid) {
		/* The ids are the user's already (priv__drop_keep_caps): shed what was kept. */
		err = set_caps(NULL, 0);
		if (err)
			return err;
	} else {
		/* The user's own supplementary groups, not none: clearing them would make files
		 * the user can normally read unreadable (to the traced command, to DuckDB). */
		err = become(t);
		if (err)
			return err;
	}
	if (geteuid() != t->uid || getegid() != t->gid || setuid(0) == 0 || setegid(0) == 0 ||
	    setfsuid(0) == 0 || (int)setfsuid((uid_t)-1) != (int)t->uid)
		return -EPERM;
	set_user_env(t);
	return 0;
}

int priv__drop_keep_caps(const struct priv_target *t, const int *caps, int n)
{
	int err;

	if (!t->valid)
		return 0;
	/* Per thread: the others lose every capability with the uid change (glibc applies
	 * the id calls to all threads), this one keeps its permitted set for set_caps. */
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return -errno;
	err = become(t);
	prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	if (!err)
		err = set_caps(caps, n);
	if (!err && (setuid(0) == 0 || geteuid() != t->uid))
		err = -EPERM;
	return err;
}

int priv__drop_to_invoker(void)
{
	struct priv_target t;
	int err;

	if (priv__resolve(&t))
		return -EINVAL;
	err = priv__drop(&t);
	if (err)
		log__error("cannot become uid %u (SUDO_UID): %s", t.uid, strerror(-err));
	return err;
}

int priv__fs_enter(const struct priv_target *t, struct priv_fs *saved)
{
	memset(saved, 0, sizeof(*saved));
	if (!t->valid || geteuid() != 0)
		return 0;
	saved->ngroups = getgroups(PRIV_MAX_GROUPS, saved->groups);
	if (saved->ngroups < 0)
		return -errno;
	if (setgroups((size_t)t->ngroups, t->groups))
		return -errno;
	saved->entered = true;
	/* setfsuid reports the previous id and no error: read back to verify. */
	saved->fsgid = (gid_t)setfsgid(t->gid);
	saved->fsuid = (uid_t)setfsuid(t->uid);
	if ((uid_t)setfsuid((uid_t)-1) != t->uid || (gid_t)setfsgid((gid_t)-1) != t->gid) {
		priv__fs_leave(saved);
		return -EPERM;
	}
	return 0;
}

void priv__fs_leave(struct priv_fs *saved)
{
	if (!saved->entered)
		return;
	setfsuid(saved->fsuid);
	setfsgid(saved->fsgid);
	if (setgroups((size_t)saved->ngroups, saved->groups))
		log__warn("cannot restore the supplementary groups: %s", strerror(errno));
	saved->entered = false;
}
