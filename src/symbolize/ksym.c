#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bigmem.h"
#include "common/bsearch.h"
#include "common/log.h"
#include "symbolize/ksym.h"
#include "symbolize/ksym_priv.h"

struct kmod {
	char name[64];
	unsigned long long start, end;
};

static int ksyms__read_file(int fd, char **out, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap), *nbuf;
	int err = 0;
	ssize_t r;

	if (!buf)
		return -ENOMEM;
	/* /proc files have no size: read until EOF. */
	for (;;) {
		if (cap - n < 4096) {
			nbuf = realloc(buf, cap * 2);
			if (!nbuf) {
				err = -ENOMEM;
				goto cleanup;
			}
			buf = nbuf;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto cleanup;
		}
		if (r == 0)
			break;
		n += r;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	buf = NULL;

cleanup:
	free(buf);
	return err;
}

int ksyms__pool_add(struct ksyms *k, const char *a, size_t alen, const char *b, size_t blen,
			   uint32_t *off)
{
	/* "name" or "name [module]" */
	size_t need = alen + (b ? blen + 3 : 0) + 1;
	char *p;

	if (k->pool_len + need > UINT32_MAX)
		return -E2BIG;
	if (bigmem_buf__reserve(&k->poolbuf, k->pool_len + need))
		return -ENOMEM;
	k->pool = k->poolbuf.p;
	p = k->pool + k->pool_len;
	memcpy(p, a, alen);
	p += alen;
	if (b) {
		*p++ = ' ';
		*p++ = '[';
		memcpy(p, b, blen);
		p += blen;
		*p++ = ']';
	}
	*p = '\0';
	*off = k->pool_len;
	k->pool_len += need;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Among aliases at one address prefer real functions: strong over weak, fewer leading
 * underscores ("startup_64" over "_stext" over "__pi__text"), never an end marker. */
static uint16_t ksym__rank(const char *name, size_t len, char type, bool terminator)
{
	uint16_t r = 0;

	while (r < 3 && r < len && name[r] == '_')
		r++;
	if (type == 'w' || type == 'W')
		r += 10;
	if (terminator)
		r += 100;
	return r;
}

static bool ksym__is_terminator(const char *name, size_t len)
{
	return (len == 6 && !memcmp(name, "_etext", 6)) || (len == 10 && !memcmp(name, "_einittext", 10));
}


/* A new last symbol at addr labelled "name" or "name [mod]" (the table is sorted later).
 * *out stays valid until the next push. */
int ksyms__push(struct ksyms *k, struct ksyms_parse *ps, unsigned long long addr,
		       const char *name, size_t name_len, const char *mod, size_t mod_len,
		       struct ksym **out)
{
	struct ksym *s;
	int err;

	if (bigmem_buf__reserve(&k->symbuf, (k->n + 1) * sizeof(*k->syms)))
		return -ENOMEM;
	k->syms = k->symbuf.p;
	s = &k->syms[k->n];
	memset(s, 0, sizeof(*s));
	s->addr = addr;
	err = ksyms__pool_add(k, name, name_len, mod, mod_len, &s->label);
	if (err)
		return err;
	if (mod) {
		/* Module symbols come grouped by module: store each name once per run. */
		if (!ps->mod || strlen(ps->mod_name) != mod_len || memcmp(ps->mod_name, mod, mod_len)) {
			err = ksyms__pool_add(k, mod, mod_len, NULL, 0, &ps->mod);
			if (err)
				return err;
			snprintf(ps->mod_name, sizeof(ps->mod_name), "%.*s", (int)mod_len, mod);
		}
		s->module = ps->mod;
	}
	k->n++;
	*out = s;
	return 0;
}

/* One kallsyms line: "ffffffff81000000 T _stext" or "ffffffffc0a1b000 t nvme_irq\t[nvme]". */
static int ksyms__parse_line(struct ksyms *k, struct ksyms_parse *ps, const char *line)
{
	unsigned long long addr = 0;
	const char *p = line, *name, *mod = NULL;
	size_t name_len, mod_len = 0;
	int digits = 0, v, err;
	struct ksym *s;
	char type;

	while ((v = hexval(*p)) >= 0 && digits < 16) {
		addr = addr << 4 | v;
		p++;
		digits++;
	}
	if (!digits || p[0] != ' ' || !p[1] || p[2] != ' ')
		return 0;	/* not a symbol line; kallsyms has none, other files may */
	if (addr)
		ps->nonzero = true;
	type = p[1];
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	name = p + 3;
	name_len = strcspn(name, "\t ");
	if (!name_len)
		return 0;
	if (name[name_len] == '\t' && name[name_len + 1] == '[') {
		mod = name + name_len + 2;
		mod_len = strcspn(mod, "]");
	}

	if (k->n && addr < k->syms[k->n - 1].addr)
		ps->unsorted = true;
	err = ksyms__push(k, ps, addr, name, name_len, mod, mod_len, &s);
	if (err)
		return err;
	s->terminator = !mod && ksym__is_terminator(name, name_len);
	s->rank = ksym__rank(name, name_len, type, s->terminator);
	return 0;
}

/* Streams the file through one buffer: kallsyms is ~5 MB of text, and fresh pages are
 * what loading costs most (page faults are slow in VMs). The kernel formats kallsyms per
 * read call, so reads are large. */
static int ksyms__parse_file(struct ksyms *k, int fd, struct ksyms_parse *ps)
{
	const size_t cap = 1 << 20;
	char *buf = malloc(cap + 1);
	size_t have = 0;
	int err = 0;
	ssize_t r;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		char *line, *nl;

		r = read(fd, buf + have, cap - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto cleanup;
		}
		have += r;
		buf[have] = '\0';
		line = buf;
		while ((nl = memchr(line, '\n', buf + have - line)) || (r == 0 && line < buf + have)) {
			if (nl)
				*nl = '\0';
			err = ksyms__parse_line(k, ps, line);
			if (err)
				goto cleanup;
			line = nl ? nl + 1 : buf + have;
		}
		if (r == 0)
			break;
		/* Keep the partial last line; a line longer than the buffer is dropped. */
		have = buf + have - line;
		if (have == cap)
			have = 0;
		memmove(buf, line, have);
	}

cleanup:
	free(buf);
	return err;
}

static int ksym__cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->label < y->label ? -1 : x->label > y->label;
}

static bool ksym__better(const struct ksym *x, const struct ksym *y)
{
	return x->rank < y->rank || (x->rank == y->rank && x->label < y->label);
}

/* /proc/modules: "nvme 61440 2 - Live 0xffffffffc0a00000 (E)". Best effort: without it the
 * last symbol of a module reaches KSYMS_TAIL_MAX. */
static struct kmod *ksyms__read_modules(int fd, size_t *count)
{
	struct kmod *mods = NULL, *m;
	size_t n = 0, len;
	char *buf = NULL, *line, *nl;

	*count = 0;
	if (fd < 0 || ksyms__read_file(fd, &buf, &len))
		return NULL;
	for (line = buf; *line; line = nl ? nl + 1 : line + strlen(line)) {
		char name[64];
		unsigned long long size, start;

		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (sscanf(line, "%63s %llu %*s %*s %*s %llx", name, &size, &start) != 3 || !start)
			continue;
		m = realloc(mods, (n + 1) * sizeof(*mods));
		if (!m)
			break;
		mods = m;
		snprintf(mods[n].name, sizeof(mods[n].name), "%s", name);
		mods[n].start = start;
		mods[n].end = start + size;
		n++;
	}
	free(buf);
	*count = n;
	return mods;
}

static unsigned long long ksyms__group_end(const struct ksyms *k, const struct ksym *s,
					   const struct kmod *mods, size_t nmods)
{
	if (s->module) {
		for (size_t i = 0; i < nmods; i++) {
			if (!strcmp(mods[i].name, k->pool + s->module) && s->addr >= mods[i].start &&
			    s->addr < mods[i].end)
				return mods[i].end;
		}
	}
	return s->addr + KSYMS_TAIL_MAX;
}

/* kallsyms is sorted but for what was added late (BPF programs, some module symbols):
 * sort only the part after the sorted prefix and merge it in, from the back, through a
 * copy of that part (a full qsort of 120K symbols was half of the load's CPU time). */
void ksyms__sort(struct ksym *syms, size_t n)
{
	size_t pre = 1, tail, i, j, out;
	struct ksym *t;

	while (pre < n && ksym__cmp(&syms[pre - 1], &syms[pre]) <= 0)
		pre++;
	if (pre >= n)
		return;
	tail = n - pre;
	t = malloc(tail * sizeof(*t));
	if (!t) {
		qsort(syms, n, sizeof(*syms), ksym__cmp);
		return;
	}
	memcpy(t, syms + pre, tail * sizeof(*t));
	qsort(t, tail, sizeof(*t), ksym__cmp);
	i = pre;
	j = tail;
	out = n;
	while (j) {
		if (i && ksym__cmp(&syms[i - 1], &t[j - 1]) > 0)
			syms[--out] = syms[--i];
		else
			syms[--out] = t[--j];
	}
	free(t);
}

/* Sort, keep one symbol per address, and give each its extent: up to the next symbol of the
 * same group (kernel or one module); a group's last symbol up to its module's end. */
static void ksyms__finish(struct ksyms *k, bool unsorted, const struct kmod *mods, size_t nmods)
{
	size_t out = 0;

	if (unsorted)
		ksyms__sort(k->syms, k->n);
	for (size_t i = 0; i < k->n; i++) {
		if (out && k->syms[out - 1].addr == k->syms[i].addr) {
			if (ksym__better(&k->syms[i], &k->syms[out - 1]))
				k->syms[out - 1] = k->syms[i];
			continue;
		}
		k->syms[out++] = k->syms[i];
	}
	k->n = out;
	for (size_t i = 0; i < k->n; i++) {
		struct ksym *s = &k->syms[i];
		const struct ksym *next = i + 1 < k->n ? &k->syms[i + 1] : NULL;

		if (s->terminator)
			s->end = s->addr;
		else if (next && (next->module == s->module ||
				  !strcmp(k->pool + next->module, k->pool + s->module)))
			s->end = next->addr;
		else {
			unsigned long long end = ksyms__group_end(k, s, mods, nmods);

			s->end = next && next->addr < end ? next->addr : end;
		}
	}
}

struct ksyms *ksyms__load_fd(int syms_fd, int mods_fd)
{
	struct ksyms_parse ps = {};
	struct kmod *mods = NULL;
	struct ksyms *k = NULL;
	size_t nmods = 0;
	uint32_t empty;
	int err;

	k = calloc(1, sizeof(*k));
	if (!k) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = ksyms__pool_add(k, "", 0, NULL, 0, &empty);	/* offset 0: "no module" */
	if (err)
		goto cleanup;
	err = ksyms__parse_file(k, syms_fd, &ps);
	if (err)
		goto cleanup;
	if (!ps.nonzero && k->n) {
		log__error("kernel symbols: every address reads as 0 (kernel.kptr_restrict); "
			   "kernel frames need them read as root");
		err = -EPERM;
		goto cleanup;
	}
	if (!k->n) {
		err = -ENODATA;
		goto cleanup;
	}
	mods = ksyms__read_modules(mods_fd, &nmods);
	ksyms__finish(k, ps.unsorted, mods, nmods);

cleanup:
	free(mods);
	if (err) {
		ksyms__free(k);
		errno = -err;
		return NULL;
	}
	return k;
}

int ksyms__open(int *syms_fd, int *mods_fd)
{
	*mods_fd = -1;
	*syms_fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (*syms_fd < 0)
		return -errno;
	*mods_fd = open("/proc/modules", O_RDONLY | O_CLOEXEC);
	return 0;
}

struct ksyms *ksyms__load(const char *path)
{
	int syms_fd, mods_fd = -1, err;
	struct ksyms *k;

	if (path) {
		syms_fd = open(path, O_RDONLY | O_CLOEXEC);
		err = syms_fd < 0 ? -errno : 0;
	} else {
		err = ksyms__open(&syms_fd, &mods_fd);
	}
	if (err) {
		errno = -err;
		return NULL;
	}
	k = ksyms__load_fd(syms_fd, mods_fd);
	err = errno;
	close(syms_fd);
	if (mods_fd >= 0)
		close(mods_fd);
	errno = err;
	return k;
}

int ksyms__add(struct ksyms *k, const struct ksym_add *a, size_t n)
{
	struct ksyms_parse ps = { 0 };

	for (size_t i = 0; i < n; i++) {
		struct ksym *s;
		int err = ksyms__push(k, &ps, a[i].addr, a[i].label, strlen(a[i].label), a[i].module,
				      strlen(a[i].module), &s);

		if (err)
			return err;
		s->end = a[i].addr + a[i].len;
	}
	ksyms__sort(k->syms, k->n);
	return 0;
}

void ksyms__free(struct ksyms *k)
{
	if (!k)
		return;
	if (k->lookup_free)
		k->lookup_free(k->lookup_ctx);
	bigmem_buf__free(&k->poolbuf);
	bigmem_buf__free(&k->symbuf);
	free(k);
}

unsigned long ksyms__count(const struct ksyms *k)
{
	return k->n;
}

/* The last symbol starting at or below addr, or NULL. */
const struct ksym *ksyms__floor(const struct ksyms *k, unsigned long long addr)
{
	size_t lo = BSEARCH_FIRST((size_t)0, k->n, i, k->syms[i].addr <= addr);

	return lo ? &k->syms[lo - 1] : NULL;
}

const char *ksyms__label(const struct ksyms *k, unsigned long long addr, unsigned long long *offset)
{
	const struct ksym *s = ksyms__floor(k, addr);

	if (!s || addr >= s->end || s->unknown)
		return NULL;
	if (offset)
		*offset = addr - s->addr;
	return k->pool + s->label;
}
