/* The descriptors /proc showed at the start (META_FDS, {"tgid":{"fd":"path"}}), read into
 * the fd tracker before the rows: the JSON the recorder writes, and nothing more. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "finalize/fdseed.h"
#include "parquet/strtab.h"
#include "trace/schema.h"

struct cur {
	const char *p;
};

static void ws(struct cur *c)
{
	while (*c->p == ' ')
		c->p++;
}

static bool eat(struct cur *c, char ch)
{
	ws(c);
	if (*c->p != ch)
		return false;
	c->p++;
	return true;
}

static int hexval(char ch)
{
	return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 :
	       ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* A JSON string into out (at most max - 1 bytes, escapes decoded); false when malformed. */
static bool str(struct cur *c, char *out, size_t max, size_t *len)
{
	size_t n = 0;

	if (!eat(c, '"'))
		return false;
	while (*c->p && *c->p != '"' && *c->p != '\n') {
		unsigned int ch = (unsigned char)*c->p++;

		if (ch == '\\') {
			char e = *c->p++;

			ch = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b' :
			     e == 'f' ? '\f' : (unsigned char)e;
			if (e == 'u') {
				int h[4];

				for (int i = 0; i < 4; i++)
					if ((h[i] = hexval(c->p[i])) < 0)
						return false;
				c->p += 4;
				ch = (unsigned int)(h[0] << 12 | h[1] << 8 | h[2] << 4 | h[3]);
				if (ch >= 0x80 && n + 2 < max) {	/* paths the writer escapes: controls */
					out[n++] = (char)(0xc0 | ch >> 6);
					ch = 0x80 | (ch & 0x3f);
				}
			}
		}
		if (n + 1 < max)
			out[n++] = (char)ch;
	}
	out[n] = 0;
	*len = n;
	return eat(c, '"');
}

static bool number(struct cur *c, long *v)
{
	char buf[32], *end;
	size_t n;

	if (!str(c, buf, sizeof(buf), &n) || !n)
		return false;
	*v = strtol(buf, &end, 10);
	return !*end && *v >= 0;
}

static int one_process(struct cur *c, struct fdpaths *f, struct intern *files, long tgid)
{
	static char path[4096 + 1];
	size_t len;
	long fd;
	int err;

	if (!eat(c, '{'))
		return -EINVAL;
	if (eat(c, '}'))
		return 0;
	do {
		int64_t id;

		if (!number(c, &fd) || !eat(c, ':') || !str(c, path, sizeof(path), &len))
			return -EINVAL;
		if ((id = strtab__intern(files, path, (uint32_t)len)) < 0)
			return (int)id;
		if ((err = fdpaths__set(f, (uint32_t)tgid, fd, (uint32_t)id, false)))
			return err;
	} while (eat(c, ','));
	return eat(c, '}') ? 0 : -EINVAL;
}

int fdseed__read(const char *meta, struct fdpaths *f, struct intern *files)
{
	static const char key[] = META_FDS "\t";
	const char *line = meta;
	struct cur c;
	long tgid;
	int err;

	while (line && strncmp(line, key, sizeof(key) - 1)) {
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	if (!line)
		return 0;
	c.p = line + sizeof(key) - 1;
	if (!eat(&c, '{'))
		return -EINVAL;
	if (eat(&c, '}'))
		return 1;
	do {
		if (!number(&c, &tgid) || !eat(&c, ':') || (err = one_process(&c, f, files, tgid)))
			return err ? err : -EINVAL;
	} while (eat(&c, ','));
	return eat(&c, '}') ? 1 : -EINVAL;
}
