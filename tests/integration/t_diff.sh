#!/usr/bin/env bash
# probex diff on two recordings of one program with known differences (tests/fixtures/
# diffmodes.c): NEW does twice the work in work_double, sleeps 100 ms longer in
# sleep_longer and makes 1000 more getppid calls.  The diff finds each with the right
# size and nothing else large; a trace against itself shows no change.
source "$(dirname "$0")/lib.sh"
for m in base new; do
	"$PROBEX" -q -o "$TMP/$m.parquet" --no-viewer -- "$FIXTURES/diffmodes" $m >/dev/null || fail "recording $m: exit $?"
done
"$PROBEX" diff "$TMP/base.parquet" "$TMP/new.parquet" >"$TMP/d.txt" 2>"$TMP/d.err" || fail "diff: exit $?"
assert_eq "no warning between two runs of one program" "" "$(cat "$TMP/d.err")"
assert_eq "the text fits 100 columns" 1 "$(awk '{ if (length($0) > m) m = length($0) } END { print (m <= 100) }' "$TMP/d.txt")"
"$PROBEX" diff --json --top 100000 "$TMP/base.parquet" "$TMP/new.parquet" >"$TMP/d.json" || fail "diff --json: exit $?"
"$PROBEX" export "$TMP/new.parquet" --format folded >"$TMP/new.folded" || fail "export"
python3 - "$TMP/d.json" "$TMP/new.folded" <<'PYEOF' || fail "the diff's findings (above)"
import json, sys
r = json.load(open(sys.argv[1]))
# Functions on a stack through work_double are its callers and callees.
near = set()
for l in open(sys.argv[2]):
    s = l.rsplit(' ', 1)[0].split(';')
    if 'work_double' in s:
        near.update(f + ' [k]' for f in s)
        near.update(s)
bad = []
def check(what, ok, got):
    print(('ok: ' if ok else 'FAIL: ') + f'{what}: {got}')
    if not ok:
        bad.append(what)
f = {x['name']: x for x in r['functions']}
wd, ws = f['work_double'], f['work_same']
ratio = wd['new_total_ns'] / wd['base_total_ns']
check('work_double: twice the CPU time', 1.6 <= ratio <= 2.5, f'{ratio:.2f}x')
ratio = ws['new_total_ns'] / ws['base_total_ns']
check('work_same: the same CPU time', 0.75 <= ratio <= 1.33, f'{ratio:.2f}x')
check('work_double: the largest change but its own callers', r['functions'][0]['name'] in near, r['functions'][0]['name'])
big = wd['new_total_ns'] - wd['base_total_ns']
others = [x['name'] for x in r['functions'] if x['name'] not in near and x['name'] != 'work_same'
          and abs(x['new_total_ns'] - x['base_total_ns']) > 0.1 * big]
check('no other function changed by a tenth of that', not others, others)
s = {x['name']: x for x in r['syscalls']}
g = s['getppid']
check('getppid: 1000 more calls', g['new_count'] - g['base_count'] == 1000, f"{g['base_count']} -> {g['new_count']}")
c = s['clock_nanosleep']
check('clock_nanosleep: about 100 ms longer', 80e6 <= c['new_total_ns'] - c['base_total_ns'] <= 250e6,
      c['new_total_ns'] - c['base_total_ns'])
others = [k for k, x in s.items() if k not in ('getppid', 'clock_nanosleep') and
          (abs(x['new_count'] - x['base_count']) > 3 or abs(x['new_total_ns'] - x['base_total_ns']) > 10e6)]
check('no other syscall changed much', not others, others)
o = [x for x in r['off_cpu'] if 'sleep_longer' in x['stack']]
d = sum(x['new_ns'] - x['base_ns'] for x in o)
check('off-CPU in sleep_longer: about 100 ms longer', len(o) >= 1 and 80e6 <= d <= 250e6, d)
check('that is the largest off-CPU change', 'sleep_longer' in r['off_cpu'][0]['stack'], r['off_cpu'][0]['stack'][-3:])
# Preemption of the spinning functions depends on the machine's load: not a finding.
others = [x['stack'][-3:] for x in r['off_cpu'] if 'sleep_longer' not in x['stack'] and 'spin' not in x['stack']
          and abs(x['new_ns'] - x['base_ns']) > 30e6]
check('no other blocking stack changed by 30 ms', not others, others)
p = r['processes']
check('one process, matched', len(p) == 1 and p[0]['base_pid'] and p[0]['new_pid'] and p[0]['name'] == 'diffmodes', p)
check('its wall time grew by the work and the sleep', p[0]['new_wall_ns'] - p[0]['base_wall_ns'] > 150e6,
      p[0]['new_wall_ns'] - p[0]['base_wall_ns'])
check('both exit 0', p[0]['base_exit_code'] == 0 and p[0]['new_exit_code'] == 0, p[0])
sys.exit(1 if bad else 0)
PYEOF
"$PROBEX" diff --json --top 100000 "$TMP/new.parquet" "$TMP/new.parquet" >"$TMP/aa.json" || fail "diff A A: exit $?"
assert_eq "diff A A: no change" "0" "$(python3 -c "
import json; r = json.load(open('$TMP/aa.json'))
print(sum(f['base_total_ns'] != f['new_total_ns'] for f in r['functions']) + sum(s['base_total_ns'] != s['new_total_ns']
      or s['base_count'] != s['new_count'] for s in r['syscalls']) + sum(o['base_ns'] != o['new_ns'] for o in r['off_cpu']))")"
"$PROBEX" synth -o "$TMP/synth.parquet" --events 5000 2>/dev/null || fail "synth"
"$PROBEX" diff "$TMP/base.parquet" "$TMP/synth.parquet" >/dev/null 2>"$TMP/w.err" || fail "diff of two programs: exit $?"
grep -q "different programs" "$TMP/w.err" || fail "diff of two programs: no warning"
echo "ok: two programs compare, with a warning"
