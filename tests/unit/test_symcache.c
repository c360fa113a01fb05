/* The on-disk symbol cache: a second lookup of an object is answered from its entry with
 * the same names as a table built from the ELF; a damaged entry (flipped byte, truncated,
 * garbage) is detected, rebuilt and never trusted; the directory stays under its bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "elf_fixture.h"
#include "symbolize/elfsyms.h"
#include "symbolize/symcache.h"

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct fx {
	char dir[64];
	Dwfl *dwfl[4];
	Dwfl_Module *mod[4];
	const unsigned char *id[4];
	int idlen[4];
};

/* The first and last share a build-id (strip keeps it). */
static const char *const files[] = { "sym_chain_stripped", "sym_cxx_stripped", "libsymfx.so", "sym_chain" };

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/probex-symcache.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	for (int i = 0; i < 4; i++) {
		const char *path = fx_path(files[i]);
		GElf_Addr vaddr;
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		f->dwfl[i] = dwfl_begin(&callbacks);
		dwfl_report_begin(f->dwfl[i]);
		f->mod[i] = dwfl_report_elf(f->dwfl[i], path, path, fd, 0, true);
		dwfl_report_end(f->dwfl[i], NULL, NULL);
		if (!f->mod[i])
			return -1;
		f->idlen[i] = dwfl_module_build_id(f->mod[i], &f->id[i], &vaddr);
	}
	symcache__configure(f->dir, (uid_t)-1, (gid_t)-1, 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	symcache__configure(NULL, 0, 0, 0);
	for (int i = 0; i < 4; i++)
		dwfl_end(f->dwfl[i]);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd))
		return -1;
	free(f);
	return 0;
}

/* Every symbol's start and middle named alike by both tables. */
static void assert_same_names(Dwfl_Module *mod, const struct elfsyms *a, const struct elfsyms *b)
{
	int n = dwfl_module_getsymtab(mod);

	assert_int_equal(elfsyms__count(a), elfsyms__count(b));
	for (int i = 1; i < n; i++) {
		GElf_Sym s;
		GElf_Addr v;

		if (!dwfl_module_getsym_info(mod, i, &s, &v, NULL, NULL, NULL) || !v)
			continue;
		for (GElf_Addr p = v; p <= v + s.st_size / 2; p += s.st_size / 2 + 1) {
			const char *x = elfsyms__name(a, p), *y = elfsyms__name(b, p);

			assert_true((!x && !y) || (x && y && !strcmp(x, y)));
		}
	}
}

static void entry(const struct fx *f, int i, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/", f->dir);

	for (int k = 0; k < f->idlen[i]; k++)
		n += snprintf(buf + n, size - n, "%02x", f->id[i][k]);
	snprintf(buf + n, size - n, ".syms");
}

static void test_warm(void **state)
{
	struct fx *f = *state;
	struct symcache_stats st;
	struct elfsyms *cold, *warm, *built;

	cold = symcache__table(f->mod[0], f->id[0], f->idlen[0]);
	warm = symcache__table(f->mod[0], f->id[0], f->idlen[0]);
	built = elfsyms__new(f->mod[0]);
	assert_non_null(cold);
	assert_non_null(warm);
	assert_true(elfsyms__count(warm) > 0);
	assert_same_names(f->mod[0], built, warm);
	symcache__stats(&st);
	assert_int_equal(st.misses, 1);
	assert_int_equal(st.hits, 1);
	assert_int_equal(st.stored, 1);
	assert_int_equal(st.corrupt, 0);
	elfsyms__free(cold);
	elfsyms__free(warm);
	elfsyms__free(built);
}

/* An entry someone else owns is read, not mapped (a mapping would show that owner's later
 * writes), and names alike.  Skipped unless root (chown). */
static void test_foreign_owner_read(void **state)
{
	struct fx *f = *state;
	struct symcache_stats st;
	struct elfsyms *t, *built = elfsyms__new(f->mod[0]);
	char path[256];

	elfsyms__free(symcache__table(f->mod[0], f->id[0], f->idlen[0]));
	entry(f, 0, path, sizeof(path));
	if (geteuid() != 0) {
		elfsyms__free(built);
		skip();
	}
	assert_int_equal(chown(path, 65534, 65534), 0);
	t = symcache__table(f->mod[0], f->id[0], f->idlen[0]);
	symcache__stats(&st);
	assert_non_null(t);
	assert_int_equal(st.hits, 1);
	assert_int_equal(st.corrupt, 0);
	assert_same_names(f->mod[0], built, t);
	elfsyms__free(t);
	elfsyms__free(built);
}

/* Damage the entry at byte off (or cut it to off bytes when cut): the next lookup
 * reports it, builds the table from the ELF and rewrites the entry. */
static void damage_and_check(struct fx *f, long off, bool cut)
{
	struct symcache_stats before, after;
	struct elfsyms *t, *built = elfsyms__new(f->mod[1]);
	char path[256];
	struct stat sb;
	int fd;

	entry(f, 1, path, sizeof(path));
	elfsyms__free(symcache__table(f->mod[1], f->id[1], f->idlen[1]));
	assert_int_equal(stat(path, &sb), 0);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	if (cut) {
		assert_int_equal(ftruncate(fd, off), 0);
	} else {
		unsigned char c;

		off = off < 0 ? sb.st_size + off : off;
		assert_int_equal(pread(fd, &c, 1, off), 1);
		c ^= 0x20;
		assert_int_equal(pwrite(fd, &c, 1, off), 1);
	}
	close(fd);
	symcache__stats(&before);
	t = symcache__table(f->mod[1], f->id[1], f->idlen[1]);
	symcache__stats(&after);
	assert_non_null(t);
	assert_int_equal(after.corrupt, before.corrupt + 1);
	assert_int_equal(after.stored, before.stored + 1);
	assert_same_names(f->mod[1], built, t);
	elfsyms__free(t);
	/* Rewritten whole: a hit again. */
	t = symcache__table(f->mod[1], f->id[1], f->idlen[1]);
	symcache__stats(&before);
	assert_int_equal(before.hits, after.hits + 1);
	assert_same_names(f->mod[1], built, t);
	elfsyms__free(t);
	elfsyms__free(built);
}

static void test_corrupt(void **state)
{
	struct fx *f = *state;

	damage_and_check(f, -3, false);		/* a name's byte: only the CRC can tell */
	damage_and_check(f, 40, false);		/* the provenance / first record */
	damage_and_check(f, 1, false);		/* the magic */
	damage_and_check(f, 100, true);		/* cut short */
	damage_and_check(f, 0, true);		/* empty */
}

static long dir_bytes(const char *path, int *n)
{
	struct dirent *d;
	long total = 0;
	DIR *dir = opendir(path);

	assert_non_null(dir);
	*n = 0;
	while ((d = readdir(dir))) {
		char p[512];
		struct stat sb;

		assert_null(strstr(d->d_name, ".tmp"));	/* no temporary left behind */
		snprintf(p, sizeof(p), "%s/%s", path, d->d_name);
		if (d->d_name[0] != '.' && !stat(p, &sb)) {
			total += sb.st_size;
			(*n)++;
		}
	}
	closedir(dir);
	return total;
}

/* Over its bound, the least recently used entries go and the newest stays. */
static void test_bound(void **state)
{
	struct fx *f = *state;
	struct symcache_stats st;
	char newest[256];
	long total;
	int n;

	for (int i = 0; i < 3; i++)
		elfsyms__free(symcache__table(f->mod[i], f->id[i], f->idlen[i]));
	total = dir_bytes(f->dir, &n);
	assert_int_equal(n, 3);
	symcache__configure(f->dir, (uid_t)-1, (gid_t)-1, total);
	entry(f, 0, newest, sizeof(newest));
	assert_int_equal(unlink(newest), 0);
	elfsyms__free(symcache__table(f->mod[0], f->id[0], f->idlen[0]));
	symcache__stats(&st);
	assert_int_equal(st.evicted, 0);	/* back to the same size: within the bound */
	symcache__configure(f->dir, (uid_t)-1, (gid_t)-1, total - 1);
	assert_int_equal(unlink(newest), 0);
	elfsyms__free(symcache__table(f->mod[0], f->id[0], f->idlen[0]));
	symcache__stats(&st);
	assert_true(st.evicted > 0);
	assert_true(dir_bytes(f->dir, &n) <= (total - 1) / 4 * 3);
	assert_int_equal(access(newest, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_warm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_owner_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bound, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
