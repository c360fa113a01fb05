#!/usr/bin/env bash
# Thread states and the critical path on a relay whose answer is known: main waits on a
# pipe for the worker, the worker on a mutex the holder keeps while it spins in hog_cpu
# and sleeps; the worker fsyncs (disk wait).  Each thread's states add up to its life; the
# time it ran agrees with its CPU samples; the critical path of main is mostly the holder
# in hog_cpu; the off_cpu exports weigh blocked time.
source "$(dirname "$0")/lib.sh"
out="$TMP/r.parquet"
hold=300 nap=100
(cd "$TMP" && "$PROBEX" -q -o "$out" --no-viewer -- "$FIXTURES/waitchain" "$hold" "$nap") >"$TMP/stdout" || fail "probex exited $?"
get() { sed -n "s/^$1=//p" "$TMP/stdout"; }
pid=$(get pid) holder=$(get holder) worker=$(get worker)
[ -n "$holder" ] && [ -n "$worker" ] || fail "fixture printed no tids"
"$PROBEX" report --json "$out" >"$TMP/r.json" || fail "report --json failed"
st() { # tid field
	python3 -c "import json,sys; d=json.load(open('$TMP/r.json')); print([t for t in d['thread_states'] if t['tid']==$1][0]['$2'])"
}
freq=$(q "$out" "SELECT decode(value) FROM parquet_kv_metadata('$out') WHERE decode(key) = 'probex.sample_freq_hz'")
for t in "$pid" "$holder" "$worker"; do
	sum=$(python3 -c "import json; d=json.load(open('$TMP/r.json')); t=[x for x in d['thread_states'] if x['tid']==$t][0]; print(sum(t[k] for k in ('running_ns','runnable_ns','sleeping_ns','disk_ns','unknown_ns')))")
	# Its life: first to last of its rows, its switches and the end of its last block.
	life=$(q "$out" "SELECT max(e) - min(s) FROM (SELECT ts_ns AS s, ts_ns + coalesce(latency_ns, 0) * (event_type = 'off_cpu')::INT AS e FROM events WHERE pid = $t OR prev_pid = $t OR next_pid = $t)")
	assert_ge "tid $t: states add up to its life (ns)" "$((life - life / 1000))" "$sum"
	assert_le "tid $t: states add up to its life (ns)" "$((life + life / 1000))" "$sum"
done
run=$(st "$holder" running_ns)
samples=$(q "$out" "SELECT sum(coalesce(stack_weight, 1)) FROM events WHERE event_type = 'cpu_sample' AND pid = $holder")
cpu=$((samples * 1000000000 / freq))
assert_ge "holder: running within 10% of samples x period ($cpu ns)" "$((cpu * 9 / 10))" "$run"
assert_le "holder: running within 10% of samples x period ($cpu ns)" "$((cpu * 11 / 10))" "$run"
# hog_cpu spins for wall time: on a loaded machine part of it is spent waiting for a CPU.
assert_ge "holder: ran or waited for a CPU its ${hold} ms (ns)" "$((hold * 900000))" "$((run + $(st "$holder" runnable_ns)))"
assert_ge "holder: slept its ${nap} ms (ns)" "$((nap * 900000))" "$(st "$holder" sleeping_ns)"
assert_ge "worker: in disk wait for its fsync (ns)" 1 "$(st "$worker" disk_ns)"
assert_ge "main: sleeping on the pipe (ns)" "$(( (hold + nap) * 900000 ))" "$(st "$pid" sleeping_ns)"
# Top blocking syscall and waker of main: the pipe read, ended by the worker.
assert_eq "main blocked in read, woken by the worker" "read $worker" "$(python3 -c "
import json; d = json.load(open('$TMP/r.json'))
s = [x for x in d['blocking_syscalls'] if x['tid'] == $pid][0]; w = [x for x in d['top_wakers'] if x['tid'] == $pid][0]
print(s['syscall'], w['waker_tid'])")"

# The critical path of the command's main thread (the default) tiles its life and is
# mostly the holder: spinning in hog_cpu, then asleep.
"$PROBEX" report --critical-path --json "$out" >"$TMP/cp.json" || fail "report --critical-path failed"
assert_eq "critical path: of main, segments tile the window" "$pid ok" "$(python3 -c "
import json; d = json.load(open('$TMP/cp.json')); s = d['segments']
ok = s[0]['start_ns'] == d['start_ns'] and s[-1]['end_ns'] == d['end_ns'] and all(a['end_ns'] == b['start_ns'] for a, b in zip(s, s[1:]))
print(d['tid'], 'ok' if ok else 'gaps')")"
by_tid() { python3 -c "
import json, collections; d = json.load(open('$TMP/cp.json')); t = d['end_ns'] - d['start_ns']; c = collections.Counter()
for s in d['segments']: c[s['tid']] += s['end_ns'] - s['start_ns']
$1"; }
assert_eq "critical path: the holder has the largest share" "$holder" "$(by_tid "print(c.most_common(1)[0][0])")"
assert_ge "critical path: the holder's share (%)" 40 "$(by_tid "print(int(100 * c[$holder] / t))")"
assert_eq "critical path: the holder's running time is in hog_cpu" "True" "$(python3 -c "
import json, collections; d = json.load(open('$TMP/cp.json')); c = collections.Counter()
for s in d['segments']:
    if s['tid'] == $holder and s['state'] == 'running' and s['stack']:
        c['hog_cpu' in s['stack']] += s['end_ns'] - s['start_ns']
print(c[True] > c[False])")"
"$PROBEX" report --critical-path "$out" >"$TMP/cp.txt" || fail "report --critical-path (text) failed"
assert_eq "critical path text fits 100 columns" 1 "$(awk '{ if (length($0) > m) m = length($0) } END { print (m <= 100) }' "$TMP/cp.txt")"
grep -q "waitchain/$holder  *running .*hog_cpu" "$TMP/cp.txt" || fail "critical path text does not name the holder in hog_cpu: $(head -5 "$TMP/cp.txt")"
echo "ok: critical path text names waitchain/$holder in hog_cpu"

# Off-CPU exports weigh time: the folded µs sum to the blocked ns with a stack.
ns=$(q "$out" "SELECT sum(latency_ns) FROM events WHERE event_type = 'off_cpu' AND stack_trace IS NOT NULL")
us=$("$PROBEX" export "$out" --format folded --event-type off_cpu | awk '{ s += $NF } END { print s + 0 }')
assert_ge "folded off_cpu: microseconds blocked" "$((ns / 1000 - 1000))" "$us"
assert_le "folded off_cpu: microseconds blocked" "$((ns / 1000 + 1000))" "$us"

# Without stacks, and with the reference's syscalls only: the same states and path, and
# no stacks rather than made-up ones.
(cd "$TMP" && "$PROBEX" -q -o "$TMP/n.parquet" --no-viewer --stacks=none --syscalls=reference -- "$FIXTURES/waitchain" 50 20) >"$TMP/stdout" || fail "probex --stacks=none exited $?"
"$PROBEX" report --critical-path --json "$TMP/n.parquet" >"$TMP/n.json" || fail "report --critical-path on --stacks=none failed"
# (CPU samples keep their stacks under --stacks=none: only blocked segments lack one.)
assert_eq "--stacks=none: blocked segments without stacks" "True 0" "$(python3 -c "
import json; d = json.load(open('$TMP/n.json'))
print(len(d['segments']) > 0, sum(1 for s in d['segments'] if s['stack'] and s['state'] in ('sleeping', 'disk')))")"
"$PROBEX" report --json "$TMP/n.parquet" >"$TMP/n.r.json" || fail "report --json on --stacks=none failed"
assert_eq "--stacks=none: thread states of the three threads" 3 "$(python3 -c "
import json; d = json.load(open('$TMP/n.r.json')); print(sum(1 for t in d['thread_states'] if t['name'] == 'waitchain'))")"

# Real software: a python3 program whose main thread joins a thread that computes, then
# sleeps.  Its critical path is the other thread's, and that thread woke main.
cat >"$TMP/join.py" <<'PY'
import threading, time
def work():
    s = 0
    for i in range(1500000):
        s += i
    time.sleep(0.15)
t = threading.Thread(target=work)
t.start()
t.join()
print("worker=%d" % t.native_id)
PY
py=$(python3 -c 'import sys; print(sys.executable)')
"$PROBEX" -q -o "$TMP/py.parquet" --no-viewer -- "$py" "$TMP/join.py" >"$TMP/stdout" || fail "probex python3 exited $?"
pyw=$(get worker)
"$PROBEX" report --critical-path --json "$TMP/py.parquet" >"$TMP/py.json" || fail "report --critical-path (python3) failed"
# (Main's own start-up, CPU-bound, is on its path too: the other thread is what it waited on.)
assert_eq "python3: main's path leaves it for the joined thread only" "$pyw" "$(python3 -c "
import json, collections; d = json.load(open('$TMP/py.json')); c = collections.Counter()
for s in d['segments']:
    if s['tid'] != d['tid']: c[s['tid']] += s['end_ns'] - s['start_ns']
print(c.most_common(1)[0][0])")"
assert_ge "python3: the joined thread's sleep is on the path (ns)" 140000000 "$(python3 -c "
import json; d = json.load(open('$TMP/py.json'))
print(sum(s['end_ns'] - s['start_ns'] for s in d['segments'] if s['tid'] == $pyw and s['state'] == 'sleeping'))")"
