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
#include "symbolize/strmap.h"
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
	struct strmap by_path;	/* root + path → struct ufile * */
	struct strmap by_inode;	/* (dev, ino, mtime) → struct ufile *: one Dwfl per file however reached */
	struct strmap by_build_id;	/* GNU build-id → struct ufile *: one per object, by content */
	struct strmap results;	/* (file idx, offset) → struct ures * */
	struct strmap strings;	/* interned demangled names and source paths */
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
	strmap__free(&u->strings);
	strmap__free(&u->results);
	strmap__free(&u->by_inode);
	strmap__free(&u->by_build_id);
	strmap__free(&u->by_path);
	free(u);
}

void usym__stats(const struct usym *u, struct usym_stats *out)
{
	*out = u->stats;
	out->objects_indexed = 0;
	for (size_t i = 0; i < u->nfiles; i++)
		out->objects_indexed += u->files[i]->mod && umod__indexed(u->files[i]->mod);
}

static const char *usym__intern(struct usym *u, const char *s)
{
	size_t len = strlen(s);
	const char *p = strmap__get(&u->strings, s, len, NULL);

	return p ? p : strmap__put(&u->strings, s, len, 0);
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

/* The object open under a build-id: one module per object however many paths, copies
 * and processes reach it.  The cell lets a richer copy take over (see usym__add_file). */
static struct ufile **usym__id_cell(struct usym *u, const unsigned char *id, size_t len)
{
	uint64_t val;

	return len && strmap__get(&u->by_build_id, id, len, &val) ? (struct ufile **)(uintptr_t)val : NULL;
}

static struct ufile *usym__by_build_id(struct usym *u, const unsigned char *id, size_t len)
{
	struct ufile **cell = usym__id_cell(u, id, len);

	return cell ? *cell : NULL;
}

static int usym__set_id_cell(struct usym *u, struct ufile **cell, const unsigned char *id,
			     size_t len, struct ufile *f)
{
	if (!cell) {
		cell = arena__alloc(&u->arena, sizeof(*cell));
		if (!cell || !strmap__put(&u->by_build_id, id, len, (uintptr_t)cell))
			return -ENOMEM;
	}
	*cell = f;
	return 0;
}

/* Opens fd as a module, or finds its build-id already open.  A copy that has DWARF of its
 * own is kept apart from a stripped one opened first (and answers for the build-id from
 * then on): sharing the stripped module would lose its inline frames. */
static struct ufile *usym__add_file(struct usym *u, int fd, const char *full)
{
	struct ufile *f, **cell = NULL;
	const unsigned char *id;
	struct umod *mod = NULL;
	int err, len;

	err = fd < 0 ? fd : umod__open(fd, full, &mod);	/* umod__open owns fd */
	len = err ? 0 : umod__build_id(mod, &id);
	cell = len > 0 ? usym__id_cell(u, id, len) : NULL;
	if (cell && (!umod__own_dwarf(mod) || umod__own_dwarf((*cell)->mod))) {
		umod__close(mod);
		return *cell;
	}
	f = usym__new_file(u);
	if (!f) {
		umod__close(mod);
		return NULL;
	}
	f->mod = mod;
	f->err = err;
	if (len > 0 && usym__set_id_cell(u, cell, id, len, f))
		return NULL;
	if (f->err)
		u->stats.files_failed++;
	else
		u->stats.files_opened++;
	return f;
}

static struct ufile *usym__file(struct usym *u, const char *path, const char *root, int verify)
{
	struct ufile *f = NULL;
	char *full = (char *)path;
	/* Without a build-id a file is known by inode and change time: a binary rebuilt in
	 * place is another object. */
	uint64_t ino_key[3] = { 0, 0, 0 }, val;
	bool have_ino = false;
	const char *key;
	struct stat st;
	int fd = -1;

	if (root && *root && asprintf(&full, "%s%s", root, path) < 0)
		return NULL;
	if (strmap__get(&u->by_path, full, strlen(full), &val)) {
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
		ino_key[2] = st.st_mtim.tv_sec * 1000000000ull + st.st_mtim.tv_nsec;
		have_ino = true;
		if (strmap__get(&u->by_inode, ino_key, sizeof(ino_key), &val)) {
			f = (struct ufile *)(uintptr_t)val;
			close(fd);
			fd = -1;
		}
	}
	if (!f) {
		f = usym__add_file(u, fd, full);
		fd = -1;
		if (!f || (have_ino && !strmap__get(&u->by_inode, ino_key, sizeof(ino_key), NULL) &&
			   !strmap__put(&u->by_inode, ino_key, sizeof(ino_key), (uintptr_t)f)))
			goto cleanup;
	}
	key = strmap__put(&u->by_path, full, strlen(full), (uintptr_t)f);
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
	f = usym__by_build_id(u, build_id, build_id_len);
	if (!f)
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
			u->stats.build_id_mismatch++;
			err = -ESTALE;
			goto fail;
		}
	}

	key[0] = f->idx;
	key[1] = file_offset;
	if (strmap__get(&u->results, key, sizeof(key), &val)) {
		u->stats.cache_hits++;
		r = (struct ures *)(uintptr_t)val;
	} else {
		r = usym__resolve(u, f, file_offset);
		if (!r || !strmap__put(&u->results, key, sizeof(key), (uintptr_t)r)) {
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
