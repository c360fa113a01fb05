#!/usr/bin/env bash
# Whole user stacks of any depth without frame pointers (issue 32): the kernel walks the
# stack through tables built from each object's .eh_frame, up to 512 frames; the copy
# only goes on where the walk stops.  Fixtures of known depth: C recursion at 100 and
# 300 levels (~240-byte frames: 24 and 72 KiB, beyond any 16 KiB copy), C++ with 4 KiB
# frames, a Rust program built here; sampled syscall and off-CPU stacks the same.
source "$(dirname "$0")/lib.sh"
whole() { # SQL condition: a stack reaching _start, not marked cut
	echo "list_contains(stack_trace, '_start') AND NOT list_contains(stack_trace, '[truncated]')"
}
walk() { # FILE FIELD: probex.stack_walk's counter
	q "$1" "SELECT json_extract(decode(value)::VARCHAR, '\$.$2') FROM parquet_kv_metadata('$1') WHERE decode(key) = 'probex.stack_walk'"
}
# deep DEPTH: CPU samples in probex_spin, whole with DEPTH probex_rec frames, >= 95%.
deep() {
	local d=$1 out="$TMP/d$1.parquet" total ok
	"$PROBEX" -q -o "$out" --no-viewer -- "$FIXTURES/deepnofp" "$d" 1.5 || fail "probex exited $?"
	total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND list_contains(stack_trace, 'probex_spin')")
	assert_ge "C recursion $d deep: cpu samples in probex_spin" 100 "$total"
	ok=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND list_contains(stack_trace, 'probex_spin') AND $(whole) AND len(list_filter(stack_trace, x -> x = 'probex_rec')) = $d AND stack_trace[2:4] = ['_start', '__libc_start_main@@GLIBC_2.34', '__libc_start_call_main']")
	assert_ge "C recursion $d deep: whole from _start with $d frames of probex_rec (of $total)" "$((total * 95 / 100))" "$ok"
}
deep 100
deep 300
# Sampled syscall stacks (clock_gettime from the vDSO) are walked the same way.
out="$TMP/d100.parquet"
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'syscall_clock_gettime_exit' AND stack_trace IS NOT NULL")
assert_ge "sampled clock_gettime stacks" 50 "$total"
assert_ge "sampled clock_gettime stacks whole with 100 frames (of $total)" "$((total * 95 / 100))" \
	"$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'syscall_clock_gettime_exit' AND $(whole) AND len(list_filter(stack_trace, x -> x = 'probex_rec')) = 100")"
assert_ge "walks the kernel ended at _start" 1000 "$(walk "$out" whole)"

# Off-CPU: the stack a thread blocked with, 100 levels down.
out="$TMP/sleep.parquet"
"$PROBEX" -q -o "$out" --no-viewer -- "$FIXTURES/deepnofp" 100 1 sleep || fail "probex exited $?"
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'off_cpu' AND list_contains(stack_trace, 'probex_spin')")
assert_ge "off-CPU intervals in probex_spin" 20 "$total"
assert_ge "off-CPU stacks whole with 100 frames (of $total)" "$((total * 95 / 100))" \
	"$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'off_cpu' AND list_contains(stack_trace, 'probex_spin') AND $(whole) AND len(list_filter(stack_trace, x -> x = 'probex_rec')) = 100")"

# Attached to a running process (--pid): its code mapped before probex came is walked too.
"$FIXTURES/deepnofp" 100 4 >/dev/null &
target=$!
sleep 0.3
out="$TMP/attach.parquet"
"$PROBEX" -q -o "$out" --no-viewer --pid "$target" || fail "probex --pid exited $?"
wait "$target"
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND list_contains(stack_trace, 'probex_spin')")
assert_ge "--pid: cpu samples in probex_spin" 100 "$total"
assert_ge "--pid: whole from _start with 100 frames (of $total)" "$((total * 90 / 100))" \
	"$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND list_contains(stack_trace, 'probex_spin') AND $(whole) AND len(list_filter(stack_trace, x -> x = 'probex_rec')) = 100")"

# Past 512 frames the stack is cut, visibly: [truncated] at its root, 512 user frames,
# and the cap counted.
out="$TMP/d600.parquet"
"$PROBEX" -q -o "$out" --no-viewer -- "$FIXTURES/deepnofp" 600 1 || fail "probex exited $?"
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND list_contains(stack_trace, 'probex_spin')")
assert_ge "600 deep: samples cut and marked (of $total)" "$((total * 95 / 100))" \
	"$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND list_contains(stack_trace, 'probex_spin') AND stack_trace[2] = '[truncated]' AND len(list_filter(stack_trace, x -> x = 'probex_rec')) >= 505")"
assert_ge "600 deep: walks that hit the cap, counted" "$((total * 95 / 100))" "$(walk "$out" cap)"
cut=$("$PROBEX" report "$out" | sed -n 's/^ *stacks cut (\[truncated\]) *\([0-9]*\) of.*/\1/p')
assert_ge "600 deep: the report's header counts the cut stacks" "$((total * 95 / 100))" "$cut"

# C++ with large frames (4 KiB each, 40 levels: 170 KiB of stack).
out="$TMP/cxx.parquet"
"$PROBEX" -q -o "$out" --no-viewer -- "$FIXTURES/deepcxx" 40 1.5 || fail "probex exited $?"
total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND list_contains(stack_trace, 'Walker::burn(double)')")
assert_ge "C++: cpu samples under Walker::burn" 100 "$total"
assert_ge "C++: whole from _start with 40 frames of Walker::descend (of $total)" "$((total * 95 / 100))" \
	"$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND list_contains(stack_trace, 'Walker::burn(double)') AND $(whole) AND len(list_filter(stack_trace, x -> x = 'Walker::descend(int, double)')) = 40")"

# Rust: std's runtime puts more than 16 KiB between main and the program's frames.
rustc=$(command -v rustc || echo /root/.cargo/bin/rustc)
if [ -x "$rustc" ]; then
	cat >"$TMP/hm.rs" <<'RS'
use std::collections::HashMap;
use std::time::Instant;
struct Counter { map: HashMap<u64, u64> }
impl Counter {
    #[inline(never)]
    fn run(&mut self, secs: f64) -> u64 {
        let start = Instant::now();
        let mut k: u64 = 0;
        while start.elapsed().as_secs_f64() < secs {
            for _ in 0..10000 {
                k = k.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                *self.map.entry(k % 100_000).or_insert(0) += 1;
            }
        }
        self.map.values().sum()
    }
}
fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let mut c = Counter { map: HashMap::new() };
    println!("{}", c.run(secs));
}
RS
	"$rustc" -O -g "$TMP/hm.rs" -o "$TMP/hm" || fail "rustc failed"
	out="$TMP/rs.parquet"
	"$PROBEX" -q -o "$out" --no-viewer -- "$TMP/hm" 1.5 >/dev/null || fail "probex exited $?"
	total=$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND list_contains(stack_trace, 'hm::Counter::run')")
	assert_ge "Rust: cpu samples in Counter::run" 100 "$total"
	assert_ge "Rust: whole from _start through std::rt::lang_start and hm::main (of $total)" "$((total * 95 / 100))" \
		"$(q "$out" "SELECT count(*) FROM events WHERE event_type = 'cpu_sample' AND list_contains(stack_trace, 'hm::Counter::run') AND $(whole) AND list_contains(stack_trace, 'hm::main') AND list_contains(stack_trace, 'std::rt::lang_start_internal')")"
else
	fail "no rustc (scripts/deps.sh installs Debian's)"
fi
