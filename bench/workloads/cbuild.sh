#!/bin/sh
# A parallel C build as a benchmark workload: DIR gets 20 generated C files and a Makefile
# that compiles them with `gcc -O2 -g` and links one program.  Run `make -C DIR -j2` to
# build it (`make -C DIR clean` first to build it again).  Many short processes of a few
# binaries (make, sh, gcc, cc1, as, collect2, ld) are what symbolization has to keep up with.
#   bench/workloads/cbuild.sh DIR
set -eu
dir=${1:?usage: cbuild.sh DIR}
mkdir -p "$dir"
n=20
i=0
while [ $i -lt $n ]; do
	# Loops, switches and inlinable helpers give the optimizer (and the -g writer) work
	# of the size of an ordinary source file.
	{
		echo "#include <stdio.h>"
		echo "#include <string.h>"
		echo "struct rec$i { int k; double v; char name[32]; struct rec$i *next; };"
		j=0
		while [ $j -lt 15 ]; do
			cat <<C
static inline int mix${i}_$j(int a, int b) { return (a * $((j + 3)) + b) ^ (a >> $((j % 7 + 1))); }
int fn${i}_$j(struct rec$i *r, int n)
{
	int acc = $j;
	for (int x = 0; x < n; x++) {
		switch ((x + acc) % 5) {
		case 0: acc += mix${i}_$j(r[x].k, x); break;
		case 1: acc ^= (int)(r[x].v * $((j + 1)).5); break;
		case 2: acc -= (int)strlen(r[x].name); break;
		case 3: if (r[x].next) acc += r[x].next->k; break;
		default: acc = mix${i}_$j(acc, n - x);
		}
	}
	return acc;
}
C
			j=$((j + 1))
		done
		echo "int unit$i(void) { struct rec$i r[4] = {{0}}; int s = 0;"
		j=0
		while [ $j -lt 15 ]; do
			echo "	s += fn${i}_$j(r, 4);"
			j=$((j + 1))
		done
		echo "	return s; }"
	} >"$dir/u$i.c"
	i=$((i + 1))
done
{
	i=0
	while [ $i -lt $n ]; do echo "int unit$i(void);"; i=$((i + 1)); done
	echo "#include <stdio.h>"
	echo "int main(void) { int s = 0;"
	i=0
	while [ $i -lt $n ]; do echo "	s += unit$i();"; i=$((i + 1)); done
	printf '\tprintf("%%d\\n", s); return 0; }\n'
} >"$dir/main.c"
objs=$(i=0; while [ $i -lt $n ]; do printf 'u%d.o ' $i; i=$((i + 1)); done)
cat >"$dir/Makefile" <<M
CC = gcc
CFLAGS = -O2 -g
OBJS = main.o $objs
prog: \$(OBJS)
	\$(CC) \$(OBJS) -o \$@
%.o: %.c
	\$(CC) \$(CFLAGS) -c \$< -o \$@
clean:
	rm -f prog \$(OBJS)
M
