#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <elfutils/libdwelf.h>

#include "common/fdio.h"
#include "common/log.h"
#include "symbolize/elfsyms.h"
#include "symbolize/symcache.h"

/* Entry: header, then the provenance text (which files the table was read from), zeros
 * to a multiple of 8 bytes, then elfsyms__encode's bytes (mapped and used in place, so
 * 8-byte aligned in the file); crc (zlib's CRC-32) covers the text and those bytes. */
struct symcache_hdr {
	char magic[8];
	uint32_t version;
	uint32_t prov_len;
	uint64_t payload_len;
	uint32_t crc;
	uint32_t reserved;
};

#define SYMCACHE_MAGIC "PRBXSYM\n"
/* Bumped when the entry layout changes: entries are mapped, not read (the payload
 * aligned, names left as offsets), and an older entry is rebuilt. */
#define SYMCACHE_VERSION 4
#define SYMCACHE_MAX_ENTRY (1ull << 30)

static struct {
	char dir[PATH_MAX];
	bool on;
	uid_t uid;
	gid_t gid;
	uint64_t max_bytes;
	struct symcache_stats st;
} sc;

int symcache__default_dir(const char *home, char *buf, size_t size)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	char parent[PATH_MAX];
	struct stat st;
	int n;

	/* Only levels below an existing home (or the XDG directory's parent) are created:
	 * a user such as nobody has a home that does not exist, and must keep it so. */
	if (xdg && xdg[0] == '/') {
		snprintf(parent, sizeof(parent), "%s", xdg);
		n = snprintf(buf, size, "%s/probex", xdg);
		dirname(parent);
	} else if (home && home[0] == '/') {
		snprintf(parent, sizeof(parent), "%s", home);
		n = snprintf(buf, size, "%s/.cache/probex", home);
	} else {
		return -ENOENT;
	}
	if (stat(parent, &st) || !S_ISDIR(st.st_mode))
		return -ENOENT;
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static void give(const char *path)
{
	/* Best effort: left ours, the entry still works for runs as root. */
	if (sc.uid != (uid_t)-1 && chown(path, sc.uid, sc.gid))
		log__debug("symbol cache: cannot give %s to uid %u", path, (unsigned)sc.uid);
}

/* mkdir -p, each created level given to the owner. */
static int make_dirs(const char *dir)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s", dir);
	for (char *s = p + 1;; s++) {
		bool end = !*s;

		if (*s != '/' && !end)
			continue;
		*s = 0;
		if (!mkdir(p, 0755))
			give(p);
		else if (errno != EEXIST)
			return -errno;
		if (end)
			return 0;
		*s = '/';
	}
}

int symcache__configure(const char *dir, uid_t owner_uid, gid_t owner_gid, uint64_t max_bytes)
{
	memset(&sc, 0, sizeof(sc));
	if (!dir)
		return 0;
	if (strlen(dir) >= sizeof(sc.dir) - 80)
		return -ENAMETOOLONG;
	snprintf(sc.dir, sizeof(sc.dir), "%s", dir);
	sc.uid = owner_uid;
	sc.gid = owner_gid;
	sc.max_bytes = max_bytes ? max_bytes : SYMCACHE_MAX_BYTES;
	sc.on = true;
	return 0;
}

void symcache__stats(struct symcache_stats *out)
{
	*out = sc.st;
}

static bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	}
	return false;
}

static bool add_file(char *buf, size_t size, const char *tag, const char *path)
{
	struct stat st;

	if (strlen(path) >= PATH_MAX || stat(path, &st))
		return false;
	snprintf(buf, size, "%s %s %lld %lld.%09ld", tag, path, (long long)st.st_size,
		 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	return true;
}

/* Which files the table comes from, found without reading any symbols: the object itself
 * when it has .symtab (its build-id fixes the content), else the debug file libdwfl would
 * read (the build-id tree, then .gnu_debuglink's places) by path, size and mtime, else
 * none.  An entry whose provenance differs is stale: installing debug symbols later gets
 * a richer table, not the cached one. */
static void provenance(Dwfl_Module *mod, const unsigned char *id, int len, char *buf, size_t size)
{
	const char *main_path = NULL, *link;
	char p[2 * PATH_MAX + 64], dir[PATH_MAX];
	GElf_Word crc;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	int n;

	if (elf && has_symtab(elf)) {
		snprintf(buf, size, "main");
		return;
	}
	n = snprintf(p, sizeof(p), "/usr/lib/debug/.build-id/%02x/", len > 0 ? id[0] : 0);
	for (int i = 1; i < len; i++)
		n += snprintf(p + n, sizeof(p) - n, "%02x", id[i]);
	snprintf(p + n, sizeof(p) - n, ".debug");
	if (add_file(buf, size, "id", p))
		return;
	link = elf ? dwelf_elf_gnu_debuglink(elf, &crc) : NULL;
	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, &main_path, NULL);
	if (link && main_path) {
		snprintf(dir, sizeof(dir), "%s", main_path);
		dirname(dir);
		snprintf(p, sizeof(p), "%s/%s", dir, link);
		if (add_file(buf, size, "link", p))
			return;
		snprintf(p, sizeof(p), "%s/.debug/%s", dir, link);
		if (add_file(buf, size, "link", p))
			return;
		snprintf(p, sizeof(p), "/usr/lib/debug%s/%s", dir, link);
		if (add_file(buf, size, "link", p))
			return;
	}
	snprintf(buf, size, "none");
}

static void entry_path(const unsigned char *id, int len, const char *ext, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/", sc.dir);

	for (int i = 0; i < len; i++)
		n += snprintf(buf + n, size - n, "%02x", id[i]);
	snprintf(buf + n, size - n, ".%s", ext);
}

static uint32_t entry_crc(const char *prov, size_t plen, const void *payload, size_t len)
{
	uLong c = crc32(0, (const Bytef *)prov, (uInt)plen);

	return (uint32_t)crc32(c, payload, (uInt)len);
}

static uint64_t prov_padded(uint64_t plen)
{
	return (plen + 7) & ~7ull;
}

/* The entry's bytes: mapped when the file is ours (a 470 KiB entry, libc's, cost ~2 ms to
 * read into fresh memory on this VM), else read.  A mapping shows later writes to the
 * file, so one whose owner is someone else (root given another user's cache directory)
 * could change a name's offset after it was checked: that is read into our memory. */
static void *entry_bytes(int fd, const struct stat *st, bool *mapped)
{
	size_t size = (size_t)st->st_size;
	void *b;

	*mapped = st->st_uid == geteuid();
	if (*mapped) {
		b = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
		return b == MAP_FAILED ? NULL : b;
	}
	b = malloc(size);
	if (b && pread(fd, b, size, 0) != (ssize_t)size) {
		free(b);
		b = NULL;
	}
	return b;
}

static void entry_free(void *b, size_t size, bool mapped)
{
	if (mapped)
		munmap(b, size);
	else
		free(b);
}

/* path's entry if it is whole and made from prov: its bytes (*b, *size, *mapped, the
 * payload at *off), 0; 1 when missing or stale (rebuilt, not an error); -1 when damaged
 * (counted in corrupt). */
static int entry_open(const char *path, const char *prov, void **b, size_t *size, bool *mapped,
		      uint64_t *off)
{
	const struct symcache_hdr *h;
	size_t plen = strlen(prov);
	struct stat st;
	int ret = -1;
	/* Not through a symlink: under sudo the directory is the user's, we are root. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	*b = NULL;
	if (fd < 0)
		return 1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < sizeof(*h) ||
	    (uint64_t)st.st_size > SYMCACHE_MAX_ENTRY + sizeof(*h) + 4 * PATH_MAX + 8)
		goto out;
	*size = (size_t)st.st_size;
	*b = entry_bytes(fd, &st, mapped);
	if (!*b)
		goto out;
	h = *b;
	if (memcmp(h->magic, SYMCACHE_MAGIC, 8))
		goto out;
	ret = 1;
	if (h->version != SYMCACHE_VERSION)
		goto out;	/* another layout: rebuilt, not an error */
	ret = -1;
	if (h->payload_len > SYMCACHE_MAX_ENTRY || h->prov_len > 4 * PATH_MAX ||
	    *size != sizeof(*h) + prov_padded(h->prov_len) + h->payload_len)
		goto out;
	if (entry_crc((const char *)*b + sizeof(*h), h->prov_len,
		      (const char *)*b + sizeof(*h) + prov_padded(h->prov_len), h->payload_len) != h->crc)
		goto out;
	ret = 1;
	if (h->prov_len != plen || memcmp((const char *)*b + sizeof(*h), prov, plen))
		goto out;	/* made from other files: rebuilt, not an error */
	*off = sizeof(*h) + prov_padded(h->prov_len);
	/* Recently used: the eviction below goes by mtime. */
	futimens(fd, NULL);
	ret = 0;
out:
	if (ret && *b) {
		entry_free(*b, *size, *mapped);
		*b = NULL;
	}
	if (ret < 0)
		sc.st.corrupt++;
	close(fd);
	return ret;
}

/* The cached table, or NULL (missing, stale, or damaged: counted in corrupt).  The table
 * keeps the entry's bytes and uses them in place (elfsyms__adopt_at). */
static struct elfsyms *load(Dwfl_Module *mod, const char *path, const char *prov)
{
	struct elfsyms *t;
	size_t size = 0;
	uint64_t off = 0;
	bool mapped = false;
	void *b;

	if (entry_open(path, prov, &b, &size, &mapped, &off))
		return NULL;
	t = elfsyms__adopt_at(mod, b, size, off, size - off, mapped);
	if (!t) {
		sc.st.corrupt++;
		entry_free(b, size, mapped);
	}
	return t;
}

struct entry {
	char name[96];
	off_t size;
	struct timespec mtime;
};

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	return (x->mtime.tv_nsec > y->mtime.tv_nsec) - (x->mtime.tv_nsec < y->mtime.tv_nsec);
}

/* Past the bound, delete the least recently used entries down to 3/4 of it. */
static void evict(void)
{
	struct entry *e = NULL, *ne;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *d;
	DIR *dir = opendir(sc.dir);

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		size_t l = strlen(d->d_name);
		struct stat st;

		if (l < 6 || l >= sizeof(e->name) ||
		    (strcmp(d->d_name + l - 5, ".syms") && strcmp(d->d_name + l - 4, ".unw")) ||
		    fstatat(dirfd(dir), d->d_name, &st, 0))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			ne = realloc(e, cap * sizeof(*e));
			if (!ne)
				break;
			e = ne;
		}
		memcpy(e[n].name, d->d_name, l + 1);	/* l < sizeof(name): checked above */
		e[n].size = st.st_size;
		e[n].mtime = st.st_mtim;
		total += st.st_size;
		n++;
	}
	if (total > sc.max_bytes) {
		qsort(e, n, sizeof(*e), entry_cmp);
		for (size_t i = 0; i < n && total > sc.max_bytes / 4 * 3; i++)
			if (!unlinkat(dirfd(dir), e[i].name, 0)) {
				total -= e[i].size;
				sc.st.evicted++;
			}
	}
	free(e);
	closedir(dir);
}

/* tmp + rename: a reader sees the old entry or the whole new one, never a part. */
static void store_bytes(const char *path, const char *prov, const void *payload, size_t len)
{
	struct symcache_hdr h = { .magic = SYMCACHE_MAGIC, .version = SYMCACHE_VERSION };
	char tmp[PATH_MAX + 32];
	int fd, err;

	if (make_dirs(sc.dir))
		return;
	h.prov_len = (uint32_t)strlen(prov);
	h.payload_len = len;
	h.crc = entry_crc(prov, h.prov_len, payload, len);
	snprintf(tmp, sizeof(tmp), "%s.%d.%lx.tmp", path, (int)getpid(), (unsigned long)pthread_self());
	/* A new file of our own (O_EXCL never follows a planted symlink); rename replaces
	 * whatever sits at path, a symlink included, without following it. */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	err = fdio__write_all(fd, &h, sizeof(h));
	if (!err)
		err = fdio__write_all(fd, prov, h.prov_len);
	if (!err)
		err = fdio__write_all(fd, (const char[8]){ 0 }, prov_padded(h.prov_len) - h.prov_len);
	if (!err)
		err = fdio__write_all(fd, payload, len);
	close(fd);
	if (!err)
		give(tmp);
	if (err || rename(tmp, path)) {
		unlink(tmp);
		return;
	}
	sc.st.stored++;
	evict();
}

static void store(const struct elfsyms *t, const char *path, const char *prov)
{
	void *payload = NULL;
	size_t len;

	if (!elfsyms__encode(t, &payload, &len))
		store_bytes(path, prov, payload, len);
	free(payload);
}

void *symcache__blob_load(const unsigned char *id, int id_len, const char *ext, const char *prov,
			  size_t *len)
{
	char path[PATH_MAX + 16];
	size_t size = 0;
	uint64_t off = 0;
	bool mapped = false;
	void *b, *copy;

	if (!sc.on || id_len <= 0 || id_len > 64)
		return NULL;
	entry_path(id, id_len, ext, path, sizeof(path));
	if (entry_open(path, prov, &b, &size, &mapped, &off))
		return NULL;
	*len = size - off;
	copy = malloc(*len ? *len : 1);
	if (copy)
		memcpy(copy, (const char *)b + off, *len);
	entry_free(b, size, mapped);
	return copy;
}

void symcache__blob_store(const unsigned char *id, int id_len, const char *ext, const char *prov,
			  const void *data, size_t len)
{
	char path[PATH_MAX + 16];

	if (!sc.on || id_len <= 0 || id_len > 64 || len > SYMCACHE_MAX_ENTRY)
		return;
	entry_path(id, id_len, ext, path, sizeof(path));
	store_bytes(path, prov, data, len);
}

struct elfsyms *symcache__table(Dwfl_Module *mod, const unsigned char *build_id, int build_id_len)
{
	char path[PATH_MAX + 16], prov[PATH_MAX + 128];
	struct elfsyms *t;

	if (!sc.on || build_id_len <= 0 || build_id_len > 64)
		return elfsyms__new(mod);
	entry_path(build_id, build_id_len, "syms", path, sizeof(path));
	provenance(mod, build_id, build_id_len, prov, sizeof(prov));
	t = load(mod, path, prov);
	if (t) {
		sc.st.hits++;
		return t;
	}
	sc.st.misses++;
	t = elfsyms__new(mod);
	if (t)
		store(t, path, prov);
	return t;
}
