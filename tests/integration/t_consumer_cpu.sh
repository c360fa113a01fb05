#!/usr/bin/env bash
# The consumer thread (real-time) leaves the CPUs the traced threads keep busy: a traced
# program on one CPU has the consumer elsewhere; a program on every CPU has it anywhere.
source "$(dirname "$0")/lib.sh"
cpus=$(nproc)
if [ "$cpus" -lt 2 ]; then
	echo "SKIP: one CPU: the consumer has nowhere else to go"
	exit 0
fi

# consumer_cpus PID: the CPU list of probex's SCHED_FIFO thread (the consumer).
consumer_cpus() {
	local t
	for t in /proc/"$1"/task/*; do
		if chrt -p "${t##*/}" 2>/dev/null | grep -q SCHED_FIFO; then
			taskset -pc "${t##*/}" | sed 's/.*: //'
			return
		fi
	done
}
# expand LIST: "0-2,5" → "0 1 2 5"
expand() {
	local r out=""
	for r in ${1//,/ }; do
		out="$out $(seq "${r%-*}" "${r#*-}" | tr '\n' ' ')"
	done
	echo $out
}
# run NAME CPU...: probex on one dd pinned to each CPU given, for 3 s; prints the
# consumer's CPUs at 2 s.
run() {
	local name=$1 c cmd="" list
	shift
	for c in "$@"; do
		cmd="$cmd taskset -c $c dd if=/dev/zero of=/dev/null bs=1 count=2000000000 & "
	done
	"$PROBEX" -q --no-viewer --stacks=none --duration 3 -o "$TMP/$name.parquet" -- \
		sh -c "$cmd wait" 2>"$TMP/$name.log" &
	local pid=$!
	sleep 2
	list=$(consumer_cpus "$pid")
	wait_exit "$pid" 30 >/dev/null
	expand "$list"
}

first=$(expand "$(taskset -pc $$ | sed 's/.*: //')" | cut -d' ' -f1)
got=$(run one "$first")
[ -n "$got" ] || fail "one busy CPU: no consumer thread found"
for c in $got; do
	[ "$c" != "$first" ] || fail "one busy CPU ($first): the consumer may still run there (CPUs $got)"
done
echo "ok: one busy CPU ($first): the consumer on CPUs $got"

# Every CPU busy (small machines only: one dd per CPU): no CPU is taken from it.
if [ "$cpus" -le 4 ]; then
	all=$(expand "$(taskset -pc $$ | sed 's/.*: //')")
	# shellcheck disable=SC2086
	got=$(run all $all)
	assert_eq "every CPU busy: the consumer may run on all of them" "$all" "$got"
fi
