#!/usr/bin/env bash
# Seed corpora for the fuzz harnesses, generated from real traces into DIR/<harness>/:
#   tracefile  synthetic traces in the reference format (`probex synth`, DuckDB's writer)
#              and, as root, traces recorded by probex (its own Parquet writer, extra
#              columns such as latency_ns and stack_weight)
#   spool      as root, the spools of those recordings (the test build, PROBEX_TEST_KEEP_SPOOL=1)
#   params     the /api/* requests the web UI sends, with the time range,
#              pids and event types of DIR/params.parquet, the trace fuzz_params serves
# Usage: seeds.sh DIR   (PROBEX, BUILD and optionally PROBEX_TEST in the environment)
set -eu
: "${PROBEX:?}" "${BUILD:?}"
PROBEX_TEST=${PROBEX_TEST:-$PROBEX-test}	# the test build: reads PROBEX_TEST_* variables
out=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out/tracefile" "$out/spool" "$out/params" "$out/unwtab"
# unwtab: small objects with .eh_frame, built here (the fuzzer mutates their CFI).
for f in nofp deepnofp; do
	[ -s "$root/$BUILD/fixtures/$f" ] && cp "$root/$BUILD/fixtures/$f" "$out/unwtab/$f"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for spec in "12 1" "60 2" "300 3" "40 4 --lost-ppm 200000" "80 5 --sample-freq 1"; do
	set -- $spec
	n=$1 s=$2
	shift 2
	f="$out/tracefile/synth-$n-$s.parquet"
	[ -s "$f" ] || "$PROBEX" synth -o "$f" --events "$n" --seed "$s" "$@" 2>/dev/null
done
# The trace fuzz_params serves: big enough for every endpoint to have data.
[ -s "$out/params.parquet" ] || "$PROBEX" synth -o "$out/params.parquet" --events 3000 --seed 9 2>/dev/null

if [ "$(id -u)" -eq 0 ]; then
	rec() { # name command...
		local name=$1
		shift
		[ -s "$out/tracefile/rec-$name.parquet" ] && return 0
		PROBEX_TEST_KEEP_SPOOL=1 "$PROBEX_TEST" -q --sample-freq 99 -o "$tmp/$name.parquet" --no-viewer -- "$@" \
			>/dev/null 2>&1 || true
		[ -s "$tmp/$name.parquet" ] && cp "$tmp/$name.parquet" "$out/tracefile/rec-$name.parquet"
		[ -s "$tmp/$name.parquet.probex-spool" ] && cp "$tmp/$name.parquet.probex-spool" "$out/spool/$name"
		return 0
	}
	rec true true
	rec shell sh -c 'ls / >/dev/null; echo x | cat >/dev/null; exit 3'
	rec dd dd if=/dev/zero of=/dev/null bs=1 count=30 status=none
	[ -x "$root/$BUILD/fixtures/quick" ] && rec quick "$root/$BUILD/fixtures/quick"
else
	echo "seeds: not root: no recorded traces or spools (synthetic seeds and tests/fuzz/regress only)"
fi

# Requests, with real values from the served trace.
read -r lo hi <<<"$("$PROBEX" query --no-header "$out/params.parquet" "SELECT min(ts_ns), max(ts_ns) FROM events" | tr '\t' ' ')"
pid=$("$PROBEX" query --no-header "$out/params.parquet" \
	"SELECT pid FROM events GROUP BY pid ORDER BY count(*) DESC LIMIT 1")
types=$("$PROBEX" query --no-header "$out/params.parquet" \
	"SELECT string_agg(DISTINCT event_type, ',') FROM events")
mid=$(((lo + hi) / 2))
i=0
while read -r req; do
	[ -n "$req" ] || continue
	i=$((i + 1))
	printf '%s' "$req" >"$out/params/ui-$i"
done <<EOF
summary
process_lifetimes
histogram?start_ns=$lo&end_ns=$hi&num_buckets=80
process_events?start_ns=$lo&end_ns=$hi&max_events_per_pid=500
pid_event_type_counts?pid=$pid&start_ns=$lo&end_ns=$mid
event_type_counts?start_ns=$lo&end_ns=$hi
event_type_counts
syscall_latency_stats?start_ns=$lo&end_ns=$hi
syscall_latency_stats?start_ns=$lo&end_ns=$mid&pid=$pid
event_flamegraph?start_ns=$lo&end_ns=$hi&event_type=cpu_sample&max_stacks=5000&pid=$pid
event_flamegraph?start_ns=$lo&end_ns=$hi&event_type=syscall_read_enter&max_stacks=50
io_statistics?start_ns=$lo&end_ns=$hi&pid=$pid&max_points=200
io_statistics?start_ns=$lo&end_ns=$hi
memory_statistics?start_ns=$lo&end_ns=$hi&max_points=200
memory_statistics?start_ns=$mid&end_ns=$hi&pid=$pid
event_list?start_ns=$lo&end_ns=$hi&pid=$pid&limit=50&offset=0&event_types=$types
event_list?start_ns=$lo&end_ns=$hi&pid=$pid&limit=50&offset=100
event_list?start_ns=$lo&end_ns=$hi&pid=$pid&limit=5&offset=0&event_types=cpu_sample%2Csyscall_write_exit
EOF
echo "seeds: $(ls "$out/tracefile" | wc -l) traces, $(ls "$out/spool" | wc -l) spools, $i requests"
