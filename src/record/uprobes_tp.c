/* tp:CATEGORY:NAME: a kernel tracepoint, its fields read as its tracefs format says. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "record/uprobes.h"

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

static FILE *open_format(const char *cat, const char *name)
{
	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		char p[512];
		FILE *f;

		snprintf(p, sizeof(p), "%s/events/%s/%s/format", tracefs_dirs[i], cat, name);
		if ((f = fopen(p, "re")))
			return f;
	}
	return NULL;
}

/* One "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" line into an argument; false for
 * the common_ fields and the shapes not decoded (arrays other than char). */
static bool field_arg(const char *line, struct uprobe_arg *a)
{
	const char *f = strstr(line, "field:"), *semi, *name, *br, *end;
	unsigned int off, size;
	int sign;
	const char *o = strstr(line, "offset:");

	if (!f || !o || sscanf(o, "offset:%u;\tsize:%u;\tsigned:%d;", &off, &size, &sign) != 3)
		return false;
	f += 6;
	semi = strchr(f, ';');
	if (!semi || semi == f)
		return false;
	/* "TYPE NAME" or "TYPE NAME[N]" (an array field). */
	br = semi[-1] == ']' ? memrchr(f, '[', semi - f) : NULL;
	end = br ? br : semi;
	for (name = end; name > f && (isalnum((unsigned char)name[-1]) || name[-1] == '_');)
		name--;
	snprintf(a->name, sizeof(a->name), "%.*s", (int)(end - name), name);
	if (!strncmp(a->name, "common_", 7) || !*a->name)
		return false;
	a->off = (uint16_t)off;
	a->size = (uint8_t)size;
	a->loc = 0;
	if (strstr(f, "__data_loc") && strstr(f, "char")) {
		a->type = PA_STR;
		a->loc = 2;
		return true;
	}
	if (br) {
		if (strncmp(f, "char ", 5) && strncmp(f, "const char ", 11))
			return false;
		a->type = PA_STR;
		a->loc = 1;
		return true;
	}
	switch (size) {
	case 1: a->type = sign ? PA_S8 : PA_U8; return true;
	case 2: a->type = sign ? PA_S16 : PA_U16; return true;
	case 4: a->type = sign ? PA_S32 : PA_U32; return true;
	case 8: a->type = sign ? PA_S64 : PA_U64; return true;
	default: return false;
	}
}

int uprobes__parse_tp(struct uprobe_def *d, const char *rest)
{
	const char *colon = strchr(rest, ':');
	char line[1024];
	int nstr = 0, skipped = 0;
	FILE *f;

	if (!colon || colon == rest || !colon[1] || strchr(colon + 1, ':') || strchr(rest, '(') ||
	    colon - rest >= UPROBE_NAME_MAX || strlen(colon + 1) >= UPROBE_NAME_MAX ||
	    strchr(rest, '/') || strchr(rest, '.')) {
		log__error("--probe '%s': expected tp:CATEGORY:NAME", d->spec);
		return -EINVAL;
	}
	snprintf(d->a, sizeof(d->a), "%.*s", (int)(colon - rest), rest);
	snprintf(d->b, sizeof(d->b), "%s", colon + 1);
	f = open_format(d->a, d->b);
	if (!f) {
		log__error("--probe '%s': no tracepoint %s:%s (see probex --list-probes tp)", d->spec, d->a, d->b);
		return -EINVAL;
	}
	while (fgets(line, sizeof(line), f)) {
		struct uprobe_arg a;

		if (!field_arg(line, &a))
			continue;
		if (d->nargs == PROBEX_PROBE_ARGS || (a.type == PA_STR && nstr == PROBEX_PROBE_STRS)) {
			skipped++;
			continue;
		}
		nstr += a.type == PA_STR;
		d->args[d->nargs++] = a;
	}
	fclose(f);
	if (skipped)
		log__warn("--probe '%s': %d fields past the first %d (%d strings) are not recorded",
			  d->spec, skipped, PROBEX_PROBE_ARGS, PROBEX_PROBE_STRS);
	snprintf(d->event, sizeof(d->event), "tp_%s_%s", d->a, d->b);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int uprobes__list_tp(void)
{
	char **v = NULL, line[512];
	size_t n = 0, cap = 0;
	FILE *f = NULL;

	for (size_t i = 0; !f && i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		snprintf(line, sizeof(line), "%s/available_events", tracefs_dirs[i]);
		f = fopen(line, "re");
	}
	if (!f) {
		log__error("cannot read the tracepoint list (is tracefs mounted? run as root): %s",
			   strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (n == cap) {
			char **nv = realloc(v, (cap = cap ? 2 * cap : 1024) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		if (!(v[n] = strdup(line)))
			break;
		n++;
	}
	fclose(f);
	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++) {
		printf("tp:%s\n", v[i]);
		free(v[i]);
	}
	free(v);
	return 0;
}
