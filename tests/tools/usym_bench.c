/* Symbolization throughput on real binaries.
 *
 *   usym_bench FILE...   every call instruction's return address in each FILE (found with
 *                        objdump -d), minus one, as a stack walk would look them up
 *   usym_bench -         "PATH OFFSET_HEX" lines on stdin (e.g. frames of perf samples,
 *                        already adjusted), repeats allowed
 *
 * Prints lookups, unique frames, share resolved, files, and the time of a cold pass (every
 * frame new) and a warm pass (all cached). */
#include <errno.h>
#include <gelf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symbolize/usym.h"

struct frame {
	char *path;
	unsigned long long off;
};

static struct frame *frames;
static size_t nframes, capframes;

static int add_frame(const char *path, unsigned long long off)
{
	if (nframes == capframes) {
		size_t cap = capframes ? capframes * 2 : 4096;
		struct frame *f = realloc(frames, cap * sizeof(*f));

		if (!f)
			return -ENOMEM;
		frames = f;
		capframes = cap;
	}
	frames[nframes].path = strdup(path);
	frames[nframes].off = off;
	return frames[nframes++].path ? 0 : -ENOMEM;
}

/* vaddr → file offset through PT_LOAD; 0 when outside every segment. */
static unsigned long long to_offset(Elf *elf, unsigned long long vaddr)
{
	size_t phnum = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &phnum))
		return 0;
	for (size_t i = 0; i < phnum; i++) {
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
		    vaddr < ph.p_vaddr + ph.p_filesz)
			return vaddr - ph.p_vaddr + ph.p_offset;
	}
	return 0;
}

static int add_call_returns(const char *path)
{
	char cmd[4096], line[1024];
	int fd, calls = 0, want_next = 0;
	Elf *elf;
	FILE *p;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn '%s'", path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		unsigned long long va;
		char *end;

		va = strtoull(line, &end, 16);
		if (end == line || *end != ':')
			continue;
		if (want_next) {
			unsigned long long off = to_offset(elf, va - 1);

			if (off && add_frame(path, off))
				break;
			want_next = 0;
		}
		if (strstr(end, "\tcall ")) {
			want_next = 1;
			calls++;
		}
	}
	if (p)
		pclose(p);
	elf_end(elf);
	close(fd);
	return calls;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	struct usym_stats st;
	struct usym *u;
	double t0, cold, warm;
	size_t ok = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE... | %s - < frames\n", argv[0], argv[0]);
		return 2;
	}
	if (!strcmp(argv[1], "-")) {
		char path[4096];
		unsigned long long off;

		while (scanf("%4095s %llx", path, &off) == 2)
			add_frame(path, off);
	} else {
		for (int i = 1; i < argc; i++)
			printf("%s: %d call sites\n", argv[i], add_call_returns(argv[i]));
	}

	u = usym__new();
	t0 = now_ms();
	for (size_t i = 0; i < nframes; i++) {
		struct usym_result r;

		ok += !usym__lookup(u, frames[i].path, NULL, NULL, 0, frames[i].off, &r);
	}
	cold = now_ms() - t0;
	t0 = now_ms();
	for (size_t i = 0; i < nframes; i++) {
		struct usym_result r;

		usym__lookup(u, frames[i].path, NULL, NULL, 0, frames[i].off, &r);
	}
	warm = now_ms() - t0;
	usym__stats(u, &st);
	printf("frames %zu (unique %lu), resolved %.2f%%, files %lu (+%lu failed)\n", nframes,
	       st.lookups - st.cache_hits, nframes ? 100.0 * ok / nframes : 0.0,
	       st.files_opened, st.files_failed);
	printf("cold pass %.1f ms (%.1f us/frame), warm pass %.1f ms (%.2f us/frame)\n", cold,
	       nframes ? cold * 1e3 / nframes : 0.0, warm, nframes ? warm * 1e3 / nframes : 0.0);
	usym__free(u);
	for (size_t i = 0; i < nframes; i++)
		free(frames[i].path);
	free(frames);
	return 0;
}
