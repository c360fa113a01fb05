#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "common/log.h"
#include "common/outfile.h"

int outfile__check(const char *path)
{
	char dir[PATH_MAX], *slash;
	struct stat st;
	int err = 0;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir)) {
		log__error("output %s: %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = 0;
	else
		strcpy(dir, ".");
	/* AT_EACCESS: the effective (and file system) identity decides, as for the open. */
	if (stat(dir, &st))
		err = errno;
	else if (!S_ISDIR(st.st_mode))
		err = ENOTDIR;
	else if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS))
		err = errno;
	if (err) {
		log__error("cannot write the output %s: directory %s: %s", path, dir, strerror(err));
		return -err;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		log__error("output %s is a directory", path);
		return -EISDIR;
	}
	/* Found now rather than after the command ran: the temporary name must be free. */
	if (outfile__tmp_name(dir, sizeof(dir), path) == 0 && lstat(dir, &st) == 0) {
		log__error("%s exists (left by an interrupted probex?): remove it first", dir);
		return -EEXIST;
	}
	return 0;
}

int outfile__tmp_name(char *buf, size_t size, const char *path)
{
	return snprintf(buf, size, "%s%s", path, OUTFILE_TMP_SUFFIX) < (int)size ? 0 : -ENAMETOOLONG;
}

int outfile__commit(const char *tmp, const char *path, bool force)
{
	char old[PATH_MAX + sizeof(OUTFILE_OLD_SUFFIX)];
	struct stat st;
	int err;

	if (!force && lstat(path, &st) == 0) {
		snprintf(old, sizeof(old), "%s%s", path, OUTFILE_OLD_SUFFIX);
		if (rename(path, old)) {
			err = -errno;
			log__error("cannot keep the earlier %s as %s: %s (--force replaces it)", path, old,
				   strerror(-err));
			return err;
		}
		log__info("kept the earlier %s as %s", path, old);
	}
	if (rename(tmp, path)) {
		err = -errno;
		log__error("cannot rename %s to %s: %s", tmp, path, strerror(-err));
		return err;
	}
	return 0;
}
