#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>

#include "symbolize/arena.h"
#include "symbolize/demangle.h"
#include "symbolize/hmap.h"
#include "symbolize/umod.h"
#include "symbolize/usym.h"

struct ufile {
	struct umod *mod;	/* NULL when the file could not be used */
	int err;		/* why not, as a negative errno */
	uint64_t idx;		/* key part of this file's results */
};

struct ures {
	const char **names;
	unsigned int n;
	const char *file;
	int line;
	int err;
};

struct usym {
	struct hmap by_path;	/* root + path → struct ufile * */
	struct hmap by_inode;	/* (dev, ino) → struct ufile *: one Dwfl per file however reached */
	struct hmap results;	/* (file idx, offset) → struct ures * */
	struct hmap strings;	/* interned demangled names and source paths */
	struct ufile **files;
	size_t nfiles, capfiles;
	struct arena arena;	/* struct ufile, struct ures and name arrays */
	struct usym_stats stats;
	bool no_lines;		/* skip source file and line lookups */
};

struct usym *usym__new(void)
{
	struct rlimit rl;

	/* Each file keeps one to three descriptors open for the life of u (the ELF, its debug
	 * file, libdwfl's debuginfod client sockets when no local debug file exists), and a
	 * system-wide trace can touch hundreds of files: use the hard limit, as perf does. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	return calloc(1, sizeof(struct usym));
}

void usym__set_lines(struct usym *u, bool on)
{
	u->no_lines = !on;
}

void usym__free(struct usym *u)
{
	if (!u)
		return;
	for (size_t i = u->nfiles; i-- > 0;)
		umod__close(u->files[i]->mod);
	free(u->files);
	arena__free(&u->arena);
	hmap__free(&u->strings);
	hmap__free(&u->results);
	hmap__free(&u->by_inode);
	hmap__free(&u->by_path);
	free(u);
}

void usym__stats(const struct usym *u, struct usym_stats *out)
{
	*out = u->stats;
}

static const char *usym__intern(struct usym *u, const char *s)
{
	size_t len = strlen(s);
	const char *p = hmap__get(&u->strings, s, len, NULL);

	return p ? p : hmap__put(&u->strings, s, len, 0);
}

/* Opens root+path, or path itself when the root is gone and a build-id will vouch for it.
 * Returns an fd or a negative errno, with a missing file as -ENXIO (-ENOENT means "no
 * symbol" to callers). */
static int usym__open_path(const char *full, const char *path, int verify)
{
	int fd = open(full, O_RDONLY | O_CLOEXEC);

	if (fd < 0 && full != path && verify && (errno == ENOENT || errno == ESRCH))
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	return errno == ENOENT || errno == ENOTDIR ? -ENXIO : -errno;
}

static struct ufile usym__transient[] = { { .err = -ENFILE }, { .err = -EMFILE }, { .err = -ENOMEM } };

static struct ufile *usym__new_file(struct usym *u)
{
	struct ufile *f;

	if (u->nfiles == u->capfiles) {
		size_t cap = u->capfiles ? u->capfiles * 2 : 16;
		struct ufile **files = realloc(u->files, cap * sizeof(*files));

		if (!files)
			return NULL;
		u->files = files;
		u->capfiles = cap;
	}
	f = arena__alloc(&u->arena, sizeof(*f));
	if (!f)
		return NULL;
	memset(f, 0, sizeof(*f));
	f->idx = u->nfiles;
	u->files[u->nfiles++] = f;
	return f;
}

static struct ufile *usym__file(struct usym *u, const char *path, const char *root, int verify)
{
	struct ufile *f = NULL;
	char *full = (char *)path;
	uint64_t ino_key[2] = { 0, 0 }, val;
	bool have_ino = false;
	const char *key;
	struct stat st;
	int fd = -1;

	if (root && *root && asprintf(&full, "%s%s", root, path) < 0)
		return NULL;
	if (hmap__get(&u->by_path, full, strlen(full), &val)) {
		f = (struct ufile *)(uintptr_t)val;
		goto cleanup;
	}

	fd = usym__open_path(full, path, verify);
	/* Out of descriptors or memory says nothing about the file: fail this lookup only. */
	if (fd == -EMFILE || fd == -ENFILE || fd == -ENOMEM) {
		f = &usym__transient[fd == -ENOMEM ? 2 : fd == -EMFILE];
		goto cleanup;
	}
	if (fd >= 0 && fstat(fd, &st) == 0) {
		ino_key[0] = st.st_dev;
		ino_key[1] = st.st_ino;
		have_ino = true;
		if (hmap__get(&u->by_inode, ino_key, sizeof(ino_key), &val)) {
			f = (struct ufile *)(uintptr_t)val;
			close(fd);
			fd = -1;
		}
	}
	if (!f) {
		f = usym__new_file(u);
		if (!f)
			goto cleanup;
		if (fd < 0) {
			f->err = fd;
		} else {
			f->err = umod__open(fd, full, &f->mod);
			fd = -1;	/* umod__open owns it now */
			if (!f->err && have_ino && !hmap__put(&u->by_inode, ino_key, sizeof(ino_key), (uintptr_t)f))
				f->err = -ENOMEM;
		}
		if (f->err)
			u->stats.files_failed++;
		else
			u->stats.files_opened++;
	}
	key = hmap__put(&u->by_path, full, strlen(full), (uintptr_t)f);
	if (!key)
		f = NULL;

cleanup:
	if (fd >= 0)
		close(fd);
	if (full != path)
		free(full);
	return f;
}

static struct ures *usym__resolve(struct usym *u, struct ufile *f, unsigned long long off)
{
	struct ures *r = arena__alloc(&u->arena, sizeof(*r));
	struct umod_sym s;

	if (!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->err = umod__symbolize(f->mod, off, !u->no_lines, &s);
	if (r->err)
		return r;

	r->names = arena__alloc(&u->arena, s.n * sizeof(*r->names));
	if (!r->names)
		return NULL;
	for (int i = 0; i < s.n; i++) {
		char *dem = demangle__name(s.names[i]);

		r->names[i] = usym__intern(u, dem ? dem : s.names[i]);
		free(dem);
		if (!r->names[i])
			return NULL;
	}
	r->n = s.n;
	if (s.file) {
		r->file = usym__intern(u, s.file);
		if (!r->file)
			return NULL;
		r->line = s.line;
	}
	return r;
}

int usym__lookup(struct usym *u, const char *path, const char *root, const unsigned char *build_id,
		 size_t build_id_len, unsigned long long file_offset, struct usym_result *out)
{
	const unsigned char *id;
	struct ufile *f;
	struct ures *r;
	uint64_t key[2], val;
	int err;

	u->stats.lookups++;
	if (!build_id)
		build_id_len = 0;
	f = usym__file(u, path, root, build_id_len > 0);
	if (!f) {
		err = -ENOMEM;
		goto fail;
	}
	if (f->err) {
		err = f->err;
		goto fail;
	}
	if (build_id_len) {
		int len = umod__build_id(f->mod, &id);

		if ((size_t)len != build_id_len || memcmp(id, build_id, len)) {
			err = -ESTALE;
			goto fail;
		}
	}

	key[0] = f->idx;
	key[1] = file_offset;
	if (hmap__get(&u->results, key, sizeof(key), &val)) {
		u->stats.cache_hits++;
		r = (struct ures *)(uintptr_t)val;
	} else {
		r = usym__resolve(u, f, file_offset);
		if (!r || !hmap__put(&u->results, key, sizeof(key), (uintptr_t)r)) {
			err = -ENOMEM;
			goto fail;
		}
	}
	if (r->err) {
		err = r->err;
		goto fail;
	}
	out->names = r->names;
	out->n = r->n;
	out->file = r->file;
	out->line = r->line;
	u->stats.resolved++;
	return 0;

fail:
	u->stats.unresolved++;
	return err;
}

int usym__read_build_id(const char *path, unsigned char *buf, size_t size)
{
	const void *id;
	ssize_t len;
	Elf *elf;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto cleanup;
	}
	len = dwelf_elf_gnu_build_id(elf, &id);
	if (len < 0) {
		err = -ENOEXEC;
		goto cleanup;
	}
	if ((size_t)len > size) {
		err = -ERANGE;
		goto cleanup;
	}
	memcpy(buf, id, len);
	err = len;

cleanup:
	elf_end(elf);
	close(fd);
	return err;
}
