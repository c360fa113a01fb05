#!/usr/bin/env bash
# Run fuzz harnesses for a bounded time each; fail on the first crash, leak, sanitizer
# report or broken property.  Inputs that fail are saved under $FUZZ_BUILD/crashes/<h>/.
#
#   FUZZ_SECONDS  total fuzzing time, split between the harnesses (default 60)
#   FUZZ_KEEP_CORPUS=1  keep $FUZZ_BUILD/corpus/<h> (the inputs found interesting) between runs
# Each harness starts from seeds generated from real traces (seeds.sh) and the committed
# regression inputs in tests/fuzz/regress/<h>/ (every failure found so far, fixed).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
: "${FUZZ_BUILD:=build/fuzz}" "${FUZZ_SECONDS:=60}" "${PROBEX:=$root/build/probex}" "${BUILD:=build}"
export PROBEX BUILD
source "$root/tests/reliability/ledger.sh"
[ $# -gt 0 ] || set -- tracefile params spool perfmap unwind unwtab ksym symcache pyframes

"$here/seeds.sh" "$FUZZ_BUILD/seeds" || { echo "fuzz: cannot generate seeds" >&2; exit 1; }
share=$((FUZZ_SECONDS / $#))
[ "$share" -ge 5 ] || share=5
# ASan's quarantine and allocation stacks dominate DuckDB's many allocations: smaller
# ones make each input ~3x faster while keeping use-after-free detection for our code.
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16:malloc_context_size=10:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Leaks in the libraries we call, each explained in the file.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$here/lsan.supp:print_suppressions=0}
export PROBEX_FUZZ_TRACE=$FUZZ_BUILD/seeds/params.parquet
mkdir -p "$FUZZ_BUILD/logs"
status=0
for h in "$@"; do
	bin=$FUZZ_BUILD/fuzzers/fuzz_$h
	corpus=$FUZZ_BUILD/corpus/$h
	art=$FUZZ_BUILD/crashes/$h
	log=$FUZZ_BUILD/logs/$h.log
	[ "${FUZZ_KEEP_CORPUS:-0}" = 1 ] || rm -rf "$corpus"
	mkdir -p "$corpus" "$art"
	dirs=("$corpus")
	for d in "$FUZZ_BUILD/seeds/$h" "$here/regress/$h"; do
		[ -n "$(ls -A "$d" 2>/dev/null)" ] && dirs+=("$d")
	done
	opts=(-timeout=60 -rss_limit_mb=4096 -artifact_prefix="$art/" -print_final_stats=1)
	[ "$h" = params ] && opts+=(-max_len=2048 -dict="$here/params.dict")
	[ "$h" = params ] || opts+=(-max_len=65536)
	# 1. Fuzz (leak checks off: with DuckDB's caches every input would trigger a full
	#    heap scan); 2. every input of the corpus once more, with leak detection.  Not for
	#    params: its trace stays loaded between inputs, and LeakSanitizer then reports a
	#    constant ~3 KB of DuckDB plan objects held by the pooled prepared statements
	#    (freed at unload; fuzz_tracefile drives the same endpoints with leak checks).
	start=$(date +%s)
	#    (-detect_leaks=0 only stops libFuzzer's own per-input checks: LeakSanitizer's
	#    at-exit scan would still judge the whole run, so it is off here too.)
	ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
		"$bin" "${opts[@]}" -detect_leaks=0 -max_total_time="$share" "${dirs[@]}" >"$log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ "$h" != params ]; then
		"$bin" "${opts[@]}" -detect_leaks=1 -runs=0 "${dirs[@]}" >>"$log" 2>&1
		rc=$?
	fi
	runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{s += $2} END {print s + 0}')
	new=$(ls "$corpus" | wc -l)
	if [ $rc -ne 0 ]; then
		crash=$(ls -t "$art" | head -n1)
		echo "FAIL fuzz_$h after $runs inputs: exit $rc; input saved as $art/$crash"
		echo "     reproduce: PROBEX_FUZZ_TRACE=$PROBEX_FUZZ_TRACE $bin $art/$crash   (log: $log)"
		grep -E -A12 'check failed|ERROR:|runtime error|SUMMARY' "$log" | head -40 | sed 's/^/     | /'
		ledger input "fuzz $h" "$runs" $((runs - 1))
		status=1
	else
		printf 'ok   fuzz_%-10s %7d inputs in %3ds, %d new corpus entries\n' "$h" "$runs" \
			$(($(date +%s) - start)) "$new"
		ledger input "fuzz $h" "$runs" "$runs"
	fi
done
exit $status
