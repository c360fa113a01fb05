/* Page-fault heavy: map 512 MiB of anonymous memory (no huge pages) and touch every 4 KiB page. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 512, len = mib << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	madvise(p, len, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < len; off += 4096)
		p[off] = (char)off;
	return p[len / 2] == 1;
}
