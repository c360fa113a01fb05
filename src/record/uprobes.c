/* --probe specs: parsed, and resolved against binaries, notes and tracefs, before any
 * recording starts. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "record/uprobes.h"

static const char *const type_names[PA__COUNT] = {
	[PA_S8] = "s8", [PA_S16] = "s16", [PA_S32] = "s32", [PA_S64] = "s64",
	[PA_U8] = "u8", [PA_U16] = "u16", [PA_U32] = "u32", [PA_U64] = "u64",
	[PA_PTR] = "ptr", [PA_STR] = "str",
};

#define BAD(d, ...) (log__error("--probe '%s': " __VA_ARGS__), -EINVAL)

static bool ident(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.' && s[i] != '$')
			return false;
	return true;
}

/* The type named by s, or -1. */
static int type_id(const char *s)
{
	for (int i = 0; i < PA__COUNT; i++)
		if (!strcmp(s, type_names[i]))
			return i;
	return -1;
}

/* "(NAME:TYPE, ...)", n bytes, after a function or USDT name. */
static int parse_args(struct uprobe_def *d, const char *p, size_t n, int max)
{
	char buf[1024], *save = NULL, *tok;

	if (n < 2 || p[n - 1] != ')' || n - 2 >= sizeof(buf))
		return BAD(d, "arguments are (NAME:TYPE, ...)", d->spec);
	memcpy(buf, p + 1, n - 2);
	buf[n - 2] = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon, *name = tok, *type;
		struct uprobe_arg *a;
		int t;

		while (isspace((unsigned char)*name))
			name++;
		colon = strchr(name, ':');
		if (!colon)
			return BAD(d, "argument '%s' has no :TYPE", d->spec, name);
		*colon = 0;
		type = colon + 1;
		while (isspace((unsigned char)*type))
			type++;
		for (char *e = type + strlen(type); e > type && isspace((unsigned char)e[-1]);)
			*--e = 0;
		if (!ident(name, strlen(name)) || strlen(name) >= sizeof(a->name))
			return BAD(d, "bad argument name '%s'", d->spec, name);
		t = type_id(type);
		if (t < 0)
			return BAD(d, "unknown type '%s' (s8 s16 s32 s64 u8 u16 u32 u64 ptr str)", d->spec, type);
		if (d->nargs >= max)
			return BAD(d, "too many arguments (at most %d)", d->spec, max);
		a = &d->args[d->nargs++];
		snprintf(a->name, sizeof(a->name), "%s", name);
		a->type = (uint8_t)t;
	}
	return 0;
}

/* s's first n bytes into dst, checked as a name. */
static int take_name(struct uprobe_def *d, char *dst, const char *s, size_t n, const char *what)
{
	if (!ident(s, n) || n >= UPROBE_NAME_MAX)
		return BAD(d, "bad %s '%.*s'", d->spec, what, (int)n, s);
	memcpy(dst, s, n);
	dst[n] = 0;
	return 0;
}

static bool is_file(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode);
}

/* Not a linker script (libc.so is one). */
static bool is_elf(const char *p)
{
	char magic[4] = { 0 };
	FILE *f = fopen(p, "re");
	bool ok = f && fread(magic, 1, 4, f) == 4 && !memcmp(magic, "\x7f" "ELF", 4);

	if (f)
		fclose(f);
	return ok;
}

/* A library among the pids' mappings: the first path whose file name is name followed
 * by '.' or '-' (libc → libc.so.6). */
static bool from_maps(const char *name, const int *pids, int npids, char *out, size_t size)
{
	size_t n = strlen(name);

	for (int i = 0; i < npids; i++) {
		char p[64], line[4608];
		FILE *f;

		snprintf(p, sizeof(p), "/proc/%d/maps", pids[i]);
		f = fopen(p, "re");
		while (f && fgets(line, sizeof(line), f)) {
			char *path = strchr(line, '/'), *base;

			if (!path)
				continue;
			path[strcspn(path, "\n")] = 0;
			base = strrchr(path, '/') + 1;
			if (!strncmp(base, name, n) && (base[n] == '.' || base[n] == '-' || !base[n])) {
				snprintf(out, size, "/proc/%d/root%s", pids[i], path);
				if (!is_file(out))
					snprintf(out, size, "%s", path);
				fclose(f);
				return true;
			}
		}
		if (f)
			fclose(f);
	}
	return false;
}

/* name.so* in the loader's directories: the shortest match (libc.so.6, not libc.so.6.x). */
static bool from_dirs(const char *name, char *out, size_t size)
{
	static const char *const dirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
		"/lib", "/usr/lib", "/usr/local/lib",
	};
	const char *ld = getenv("LD_LIBRARY_PATH");
	char prefix[UPROBE_NAME_MAX + 8], best[PATH_MAX] = "";
	size_t bestlen = SIZE_MAX;

	snprintf(prefix, sizeof(prefix), "%s.so", name);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) + 1; i++) {
		const char *dir = i ? dirs[i - 1] : ld;
		struct dirent *e;
		DIR *dp;

		if (!dir || !*dir || strchr(dir, ':') || !(dp = opendir(dir)))
			continue;
		while ((e = readdir(dp))) {
			char p[PATH_MAX];

			if (strncmp(e->d_name, prefix, strlen(prefix)) || strlen(e->d_name) >= bestlen)
				continue;
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			if (!is_file(p) || !is_elf(p))
				continue;
			snprintf(best, sizeof(best), "%s", p);
			bestlen = strlen(e->d_name);
		}
		closedir(dp);
		if (*best)
			break;
	}
	if (!*best)
		return false;
	snprintf(out, size, "%s", best);
	return true;
}

static bool from_path(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		const char *e = strchrnul(p, ':');

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(e - p), p, name);
		if (is_file(buf) && !access(buf, X_OK) && is_elf(buf)) {
			snprintf(out, size, "%s", buf);
			return true;
		}
		p = *e ? e + 1 : e;
	}
	return false;
}

/* A path, or a name, into d->path (symlinks resolved: uprobes are placed on the file
 * itself): a library the pids map, NAME.so* in the loader's directories, an ELF program
 * on PATH (not a wrapper script), then libNAME.so*. */
static int resolve_binary(struct uprobe_def *d, const char *bin, const int *pids, int npids)
{
	char found[PATH_MAX] = "", real[PATH_MAX];
	bool ok;

	if (strchr(bin, '/'))
		ok = is_file(bin) && snprintf(found, sizeof(found), "%s", bin) > 0;
	else
		ok = from_maps(bin, pids, npids, found, sizeof(found)) ||
		     from_dirs(bin, found, sizeof(found)) || from_path(bin, found, sizeof(found)) ||
		     (strncmp(bin, "lib", 3) && snprintf(real, sizeof(real), "lib%s", bin) > 0 &&
		      from_dirs(real, found, sizeof(found)));
	if (!ok)
		return BAD(d, "%s: no such binary (not a file, nor a library or program found)",
			   d->spec, bin);
	if (!realpath(found, real))
		snprintf(real, sizeof(real), "%s", found);
	snprintf(d->path, sizeof(d->path), "%s", real);
	return 0;
}

/* ":TYPE" after a u: probe's ')': the return's type, which DWARF is not asked for. */
static int parse_ret(struct uprobe_def *d, const char *s, bool *given)
{
	int t;

	*given = *s;
	if (!*s)
		return 0;
	t = *s == ':' ? type_id(s + 1) : -1;
	if (t < 0 || t == PA_STR)
		return BAD(d, "a return type follows ')' as :TYPE (s8 s16 s32 s64 u8 u16 u32 u64 ptr)",
			   d->spec);
	d->ret_type = (uint8_t)t;
	return 0;
}

/* ret's type: given, else the function's DWARF type, else s64. */
static void ret_from_dwarf(struct uprobe_def *d)
{
	int t = uprobes_dwarf__ret_type(d->path, d->a, d->vaddr);

	d->ret_type = t >= 0 ? (uint8_t)t : PA_S64;
}

static int parse_u(struct uprobe_def *d, const char *rest, const int *pids, int npids)
{
	const char *colon = strrchr(rest, ':'), *paren, *func, *close = NULL;
	char bin[PATH_MAX];
	int err, stripped;
	bool ret_given = false;

	paren = strchr(rest, '(');
	if (paren)
		for (colon = NULL, func = rest; func < paren; func++)
			if (*func == ':')
				colon = func;
	if (!colon || colon == rest)
		return BAD(d, "expected u:BINARY:FUNC[(ARG:TYPE,...)[:RET_TYPE]]", d->spec);
	func = colon + 1;
	if ((err = take_name(d, d->a, func, paren ? (size_t)(paren - func) : strlen(func), "function")))
		return err;
	if (paren && !(close = strrchr(paren, ')')))
		return BAD(d, "arguments are (NAME:TYPE, ...)", d->spec);
	if (paren && ((err = parse_args(d, paren, close + 1 - paren, 6)) ||
		      (err = parse_ret(d, close + 1, &ret_given))))
		return err;
	snprintf(bin, sizeof(bin), "%.*s", (int)(colon - rest), rest);
	if ((err = resolve_binary(d, bin, pids, npids)))
		return err;
	err = uprobes_elf__func(d->path, d->a, &d->offset, &d->vaddr, &stripped);
	if (err == -ENOENT)
		return BAD(d, "no function %s in %s%s", d->spec, d->a, d->path,
			   stripped ? " (the binary is stripped: only its dynamic symbols were searched)" : "");
	if (err)
		return BAD(d, "cannot read %s: %s", d->spec, d->path, strerror(-err));
	if (!ret_given)
		ret_from_dwarf(d);
	snprintf(d->event, sizeof(d->event), "probe_%s", d->a);
	return 0;
}

struct note_find {
	struct uprobe_def *d;
	int nargs;
	int8_t size[12];
	int found;
};

static int note_cb(const struct usdt_note *n, void *ctx)
{
	struct note_find *f = ctx;

	if (strcmp(n->provider, f->d->a) || strcmp(n->name, f->d->b))
		return 0;
	f->found = 1;
	f->nargs = n->nargs;
	memcpy(f->size, n->size, sizeof(f->size));
	return 1;
}

static uint8_t size_type(int sz)
{
	switch (sz) {
	case 1: return PA_U8;
	case 2: return PA_U16;
	case 4: return PA_U32;
	case -1: return PA_S8;
	case -2: return PA_S16;
	case -4: return PA_S32;
	case -8: return PA_S64;
	default: return PA_U64;
	}
}

static int parse_usdt(struct uprobe_def *d, const char *rest, const int *pids, int npids)
{
	const char *paren = strchr(rest, '('), *end = paren ? paren : rest + strlen(rest);
	const char *c2 = NULL, *c1 = NULL;
	struct note_find f = { .d = d };
	char bin[PATH_MAX];
	int err;

	for (const char *p = rest; p < end; p++)
		if (*p == ':')
			c1 = c2, c2 = p;
	if (!c1 || c1 == rest)
		return BAD(d, "expected usdt:BINARY:PROVIDER:NAME[(ARG:TYPE,...)]", d->spec);
	if ((err = take_name(d, d->a, c1 + 1, c2 - c1 - 1, "provider")) ||
	    (err = take_name(d, d->b, c2 + 1, end - c2 - 1, "probe name")))
		return err;
	if (paren && (err = parse_args(d, paren, strlen(paren), PROBEX_PROBE_ARGS)))
		return err;
	snprintf(bin, sizeof(bin), "%.*s", (int)(c1 - rest), rest);
	if ((err = resolve_binary(d, bin, pids, npids)))
		return err;
	err = uprobes_elf__notes(d->path, note_cb, &f);
	if (err < 0)
		return BAD(d, "cannot read %s: %s", d->spec, d->path, strerror(-err));
	if (!f.found)
		return BAD(d, "no USDT probe %s:%s in %s (see probex --list-probes %s)", d->spec, d->a,
			   d->b, d->path, d->path);
	if (d->nargs > f.nargs)
		return BAD(d, "%d arguments given, the probe has %d", d->spec, d->nargs, f.nargs);
	if (!paren) {
		d->nargs = f.nargs < PROBEX_PROBE_ARGS ? f.nargs : PROBEX_PROBE_ARGS;
		for (int i = 0; i < d->nargs; i++) {
			snprintf(d->args[i].name, sizeof(d->args[i].name), "arg%d", i);
			d->args[i].type = size_type(f.size[i]);
		}
	}
	snprintf(d->event, sizeof(d->event), "usdt_%s_%s", d->a, d->b);
	return 0;
}

static int parse_k(struct uprobe_def *d, const char *rest)
{
	const char *paren = strchr(rest, '(');
	int err;

	if ((err = take_name(d, d->a, rest, paren ? (size_t)(paren - rest) : strlen(rest), "function")))
		return err;
	if (paren && (err = parse_args(d, paren, strlen(paren), 6)))
		return err;
	if (access("/sys/bus/event_source/devices/kprobe", F_OK))
		return BAD(d, "this kernel has no kprobes, and fentry/fexit programs are not "
			   "attached by probex: kernel functions cannot be probed here", d->spec);
	return BAD(d, "k: probes are not supported by this probex yet (use tp: for a tracepoint)",
		   d->spec);
}

/* One spec into d. */
static int parse_one(struct uprobe_def *d, const char *spec, const int *pids, int npids)
{
	memset(d, 0, sizeof(*d));
	d->spec = spec;
	if (strchr(spec, '"') || strchr(spec, '\\'))
		return BAD(d, "quotes and backslashes are not allowed", spec);
	if (!strncmp(spec, "u:", 2)) {
		d->kind = UPK_U;
		return parse_u(d, spec + 2, pids, npids);
	}
	if (!strncmp(spec, "usdt:", 5)) {
		d->kind = UPK_USDT;
		return parse_usdt(d, spec + 5, pids, npids);
	}
	if (!strncmp(spec, "tp:", 3)) {
		d->kind = UPK_TP;
		return uprobes__parse_tp(d, spec + 3);
	}
	if (!strncmp(spec, "k:", 2)) {
		d->kind = UPK_K;
		return parse_k(d, spec + 2);
	}
	return BAD(d, "unknown kind (u:BINARY:FUNC, usdt:BINARY:PROVIDER:NAME, tp:CATEGORY:NAME, k:FUNC)",
		   spec);
}

/* String arguments take the record's string slots in order. */
static int assign_slots(struct uprobe_def *d)
{
	int nstr = 0;

	for (int i = 0; i < d->nargs; i++)
		if (d->args[i].type == PA_STR && nstr++ >= PROBEX_PROBE_STRS)
			return BAD(d, "at most %d str arguments", d->spec, PROBEX_PROBE_STRS);
	return 0;
}

static double secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int uprobes__parse(struct uprobe_set *s, const char *const *specs, int n, const int *pids, int npids)
{
	double t0 = secs();
	int err = 0;

	memset(s, 0, sizeof(*s));
	if (n > PROBEX_PROBES_MAX) {
		log__error("--probe: at most %d probes", PROBEX_PROBES_MAX);
		return -EINVAL;
	}
	s->d = calloc(n ? n : 1, sizeof(*s->d));
	if (!s->d)
		return -ENOMEM;
	for (int i = 0; i < n && !err; i++) {
		err = parse_one(&s->d[i], specs[i], pids, npids);
		if (!err)
			err = assign_slots(&s->d[i]);
		s->n = i + 1;
	}
	uprobes_dwarf__close();
	if (err) {
		free(s->d);
		memset(s, 0, sizeof(*s));
	}
	log__debug("probes: %d --probe resolved in %.3f s", n, secs() - t0);
	return err;
}

void uprobes__describe(const struct uprobe_set *s, struct strbuf *out)
{
	static const char *const kinds[] = { "u", "usdt", "tp", "k" };

	strbuf__add(out, "[", 1);
	for (int i = 0; i < s->n; i++) {
		const struct uprobe_def *d = &s->d[i];

		strbuf__addf(out, "%s{\"id\":%d,\"kind\":\"%s\",\"spec\":", i ? "," : "", i, kinds[d->kind]);
		strbuf__add_json_str(out, d->spec);
		strbuf__add(out, ",\"path\":", 8);
		strbuf__add_json_str(out, d->path);
		strbuf__addf(out, ",\"event\":\"%s\",\"args\":\"", d->event);
		for (int k = 0; k < d->nargs; k++)
			strbuf__addf(out, "%s%s:%s", k ? "," : "", d->args[k].name, type_names[d->args[k].type]);
		strbuf__add(out, "\"", 1);
		if (d->kind == UPK_U)
			strbuf__addf(out, ",\"ret\":\"%s\"", type_names[d->ret_type]);
		strbuf__add(out, "}", 1);
	}
	strbuf__add(out, "]", 1);
}

static int list_note(const struct usdt_note *n, void *ctx)
{
	printf("usdt:%s:%s:%s\t(%d args: %s)\n", (const char *)ctx, n->provider, n->name, n->nargs, n->args);
	return 0;
}

int uprobes__list(const char *what)
{
	struct uprobe_def d = { .spec = what };
	int err;

	if (!strcmp(what, "tp"))
		return uprobes__list_tp();
	if (resolve_binary(&d, what, NULL, 0))
		return 2;
	err = uprobes_elf__list_funcs(d.path);
	if (!err)
		err = uprobes_elf__notes(d.path, list_note, d.path);
	if (err < 0) {
		log__error("--list-probes %s: cannot read %s: %s", what, d.path, strerror(-err));
		return 1;
	}
	return 0;
}
