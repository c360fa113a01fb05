# probex report --json against independent SQL; the text fits 100 columns.  Sourced by run.sh.
for t in "${traces[@]}"; do
	name=$(basename "$t" .parquet)
	"$PROBEX" report "$t" >"$TMP/r.txt" || bad "$name: report failed"
	check "$name: report fits 100 columns" 1 "$(awk '{ if (length($0) > m) m = length($0) } END { print (m <= 100) }' "$TMP/r.txt")"
	for s in Processes Syscalls io_uring 'Page faults' 'Context switches' 'Top functions' Callees 'Top stacks'; do
		grep -q "^$s" "$TMP/r.txt" || bad "$name: report has no '$s' section"
	done
	"$PROBEX" report --json --top 100000 "$t" >"$TMP/r.json" || bad "$name: report --json failed"
	check "$name: report's heaviest stack is the folded export's" \
		"$("$PROBEX" export "$t" --format folded | awk '{ print $NF }' | sort -n | tail -1)" \
		"$($PY -c "import json; print(json.load(open('$TMP/r.json'))['stacks'][0]['weight'])")"

	# Syscalls: counts, errors, sums, max and percentiles at min(n*p/100, n-1).
	"$PROBEX" sql --json "$t" "SELECT regexp_extract(event_type, '^syscall_(.*)_exit\$', 1) AS name,
		count(*) AS calls, count_if(ret < 0) AS errors, sum(latency_ns)::UBIGINT AS total_ns,
		max(latency_ns) AS max_ns, list_sort(list(latency_ns)) AS l FROM events
		WHERE event_type LIKE 'syscall\\_%\\_exit' ESCAPE '\\' AND latency_ns IS NOT NULL GROUP BY 1" >"$TMP/sys.json"
	"$PROBEX" sql --json "$t" "SELECT coalesce(['NOP','READV','WRITEV','FSYNC','READ_FIXED','WRITE_FIXED','POLL_ADD','POLL_REMOVE','SYNC_FILE_RANGE','SENDMSG','RECVMSG','TIMEOUT','TIMEOUT_REMOVE','ACCEPT','ASYNC_CANCEL','LINK_TIMEOUT','CONNECT','FALLOCATE','OPENAT','CLOSE','FILES_UPDATE','STATX','READ','WRITE'][io_uring_opcode + 1], 'op ' || io_uring_opcode) AS name,
		count(*) AS calls, count_if(io_uring_res < 0) AS errors, sum(ts_ns - submit_ts_ns)::UBIGINT AS total_ns,
		max(ts_ns - submit_ts_ns) AS max_ns, list_sort(list(ts_ns - submit_ts_ns)) AS l FROM events
		WHERE event_type = 'io_uring_complete' AND submit_ts_ns > 0 GROUP BY 1" >"$TMP/uring.json"
	"$PROBEX" sql --json "$t" "SELECT tgid AS pid, count(*) AS faults FROM events WHERE event_type = 'page_fault' GROUP BY 1" >"$TMP/pf.json"
	"$PROBEX" sql --json "$t" "SELECT pid AS tid, count(*) AS switches FROM events WHERE event_type = 'sched_switch' AND prev_pid = pid GROUP BY 1" >"$TMP/cs.json"
	"$PROBEX" sql --json "$t" "SELECT (SELECT count(DISTINCT tgid) FROM events) AS procs,
		(SELECT count(*) FROM json_each((SELECT value FROM metadata WHERE key = 'probex.drops'))
		 WHERE value::BIGINT <> 0 AND key NOT IN ('cpu_sampler_calls', 'cpu_samples_traced', 'records_submitted',
		 'off_cpu_short_intervals', 'off_cpu_short_ns', 'off_cpu_stacks_at_end', 'syscall_exit_unpaired')) AS drops,
		(SELECT sum(coalesce(stack_weight, 1)) FROM events WHERE event_type = 'cpu_sample' AND stack_trace IS NOT NULL) AS samples" >"$TMP/misc.json"
	"$PROBEX" sql --json "$t" "SELECT list_filter(stack_trace, f -> f NOT IN ('[user]', '[kernel]'))[-1] AS leaf,
		sum(coalesce(stack_weight, 1)) AS self FROM events
		WHERE event_type = 'cpu_sample' AND stack_trace IS NOT NULL GROUP BY 1" >"$TMP/self.json"
	"$PROBEX" sql --json "$t" "SELECT f, sum(w) AS total FROM (SELECT DISTINCT rowid AS r, unnest(stack_trace) AS f,
		coalesce(stack_weight, 1) AS w FROM (SELECT row_number() OVER () AS rowid, * FROM events
		WHERE event_type = 'cpu_sample' AND stack_trace IS NOT NULL)) GROUP BY f" >"$TMP/total.json"
	check "$name: report figures equal SQL" "ok" "$($PY - "$TMP" <<'PYEOF'
import json, sys
d = sys.argv[1]
r = json.load(open(d + '/r.json'))
bad = []
def pct(l, p):
    return l[min(len(l) * p // 100, len(l) - 1)]
for sec, f in (('syscalls', 'sys.json'), ('io_uring', 'uring.json')):
    want = {x['name']: x for x in json.load(open(d + '/' + f))}
    got = {x['name']: x for x in r[sec]}
    if set(want) != set(got):
        bad.append(f'{sec} names {sorted(got)} != {sorted(want)}')
    for k, w in want.items():
        g = got.get(k, {})
        exp = {'calls': w['calls'], 'errors': w['errors'], 'total_ns': w['total_ns'], 'max_ns': w['max_ns'],
               'p50_ns': pct(w['l'], 50), 'p95_ns': pct(w['l'], 95), 'p99_ns': pct(w['l'], 99),
               'avg_ns': w['total_ns'] // w['calls']}
        for key, v in exp.items():
            if g.get(key) != v:
                bad.append(f'{sec} {k} {key}: {g.get(key)} != {v}')
pf = {x['pid']: x['faults'] for x in json.load(open(d + '/pf.json'))}
if {x['pid']: x['faults'] for x in r['page_faults']} != pf:
    bad.append('page faults per process')
cs = {x['tid']: x['switches'] for x in json.load(open(d + '/cs.json'))}
if {x['tid']: x['switches'] for x in r['context_switches']} != cs:
    bad.append('context switches per thread')
m = json.load(open(d + '/misc.json'))[0]
if len(r['processes']) != m['procs']:
    bad.append(f"processes {len(r['processes'])} != {m['procs']}")
if len(r['drops']) != m['drops']:
    bad.append(f"drop counters {len(r['drops'])} != {m['drops']}")
selfw = {x['leaf']: x['self'] for x in json.load(open(d + '/self.json'))}
totw = {x['f']: x['total'] for x in json.load(open(d + '/total.json'))}
for fn in r['functions'][:20]:
    n = fn['function'][:-4] if fn['function'].endswith(' [k]') else fn['function']
    if fn['self_weight'] != selfw.get(n, 0):
        bad.append(f"self of {n}: {fn['self_weight']} != {selfw.get(n, 0)}")
    if fn['total_weight'] != totw.get(n):
        bad.append(f"total of {n}: {fn['total_weight']} != {totw.get(n)}")
    if abs(fn['self_fraction'] - fn['self_weight'] / m['samples']) > 1e-6:
        bad.append(f'self fraction of {n}')
print('ok' if not bad else '; '.join(bad[:5]))
PYEOF
)"
done

# The header counts processes and threads apart; failed syscalls by errno name, as strace
# prints them; the drop table lists only what was lost.
for t in "${traces[@]}"; do
	name=$(basename "$t" .parquet)
	"$PROBEX" report "$t" >"$TMP/r.txt"
	check "$name: header counts processes and threads apart" \
		"$(q "$t" "SELECT count(DISTINCT tgid) || ' process' || CASE WHEN count(DISTINCT tgid) = 1 THEN '' ELSE 'es' END
			|| ', ' || count(DISTINCT pid) || ' thread' || CASE WHEN count(DISTINCT pid) = 1 THEN '' ELSE 's' END FROM events")" \
		"$(sed -n 's/^  processes  *//p' "$TMP/r.txt")"
	for k in records_submitted cpu_sampler_calls syscall_exit_unpaired; do
		grep -q "^  $k " "$TMP/r.txt" && bad "$name: $k in the drop table"
	done
	want=$(q "$t" "SELECT coalesce(string_agg(n || ' ' || e, '; ' ORDER BY n), '') FROM (SELECT
		regexp_extract(event_type, '^syscall_(.*)_exit\$', 1) AS n, count(*) AS e FROM events
		WHERE event_type LIKE 'syscall\\_%\\_exit' ESCAPE '\\' AND ret = -2 GROUP BY 1)")
	"$PROBEX" report --json "$t" >"$TMP/r.json"
	check "$name: ENOENT errors by name" "$want" "$($PY - "$TMP/r.json" <<'PYEOF'
import json, re, sys
r = json.load(open(sys.argv[1]))['syscalls']
print('; '.join(x['name'] + ' ' + re.search(r'ENOENT (\d+)', x['errnos']).group(1)
                for x in sorted(r, key=lambda x: x['name']) if x['errnos'] and 'ENOENT' in x['errnos']))
PYEOF
)"
done
[ "${#traces[@]}" -gt 1 ] && { grep -q 'ENOENT' <("$PROBEX" report "${traces[1]}") && ok "rec: ENOENT in the text report" || bad "rec: no ENOENT in the text report"; }
n=$("$PROBEX" report --help | grep -c '^  -')
[ "$n" -ge 8 ] && ok "report --help: $n options, each on its own line" || bad "report --help lists $n options"
for c in export sql recover resymbolize; do
	"$PROBEX" "$c" --help | grep -q '^Options:' && ok "$c --help explains its options" || bad "$c --help has no options"
done

# Filters: --pid and a time window give the counts SQL gives over the same rows.
t=${traces[0]}
pid=$(q "$t" "SELECT tgid FROM events WHERE event_type = 'syscall_read_exit' GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1")
t0=$(q "$t" "SELECT min(ts_ns) FROM events")
want=$(q "$t" "SELECT count(*) FROM events WHERE event_type = 'syscall_read_exit' AND latency_ns IS NOT NULL AND (pid = $pid OR tgid = $pid) AND ts_ns BETWEEN $t0 + 10000000 AND $t0 + 50000000")
got=$("$PROBEX" report --json --pid "$pid" --start 10ms --end 0.05 "$t" | $PY -c "
import json, sys
print(sum(x['calls'] for x in json.load(sys.stdin)['syscalls'] if x['name'] == 'read'))")
check "report --pid --start --end: read calls" "$want" "$got"
"$PROBEX" report --inverted "$t" | grep -q '^Callers' && ok "report --inverted lists callers" || bad "report --inverted"
"$PROBEX" report --event-type page_fault "$t" | grep -q '^Top functions of page_fault' && ok "report --event-type" || bad "report --event-type"
exit_is "report: unknown event type" 2 any "$PROBEX" report --event-type nope "$t"
# Any syscall a trace can hold is an event type, not only the reference's ten.
for et_t in "${traces[@]}"; do
	name=$(basename "$et_t" .parquet)
	et=$(q "$et_t" "SELECT coalesce(max(event_type), 'syscall_futex_exit') FROM (SELECT event_type FROM events WHERE event_type LIKE 'syscall\\_%\\_exit' ESCAPE '\\' AND syscall_nr IS NOT NULL AND stack_trace IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1)")
	want=$(q "$et_t" "SELECT coalesce(sum(coalesce(stack_weight, 1)), 0) FROM events WHERE event_type = '$et' AND stack_trace IS NOT NULL")
	"$PROBEX" report --event-type "$et" "$et_t" >"$TMP/r.txt" 2>"$TMP/r.err" || bad "$name: report --event-type $et: $(head -c 200 "$TMP/r.err")"
	check "$name: report --event-type $et counts its stacks" "$want" \
		"$(sed -n "s/^Top functions of $et stacks (\([0-9]*\) events.*/\1/p" "$TMP/r.txt")"
done
exit_is "report: bad --start" 2 any "$PROBEX" report --start 1x "$t"

# A reference-format file (the reference's 24 columns, no latency_ns): the same syscall
# figures from enter/exit pairs, the same process count, and every export works.  Only a
# recorded trace: the synthetic one has overlapping calls on a thread, which no kernel does.
for t in "${traces[@]:1}"; do
	name=$(basename "$t" .parquet)
	ref=$TMP/$name-ref.parquet
	"$PROBEX" sql "$t" "COPY (SELECT event_type, ts_ns, pid, tgid, process_name, stack_id, kernel_stack_id,
		stack_kind, stack_trace, cpu::UTINYINT AS cpu, prev_pid, next_pid, prev_state, parent_pid,
		child_pid, exit_code, address, error_code, fd, count, ret, submit_ts_ns, io_uring_opcode,
		io_uring_res FROM events) TO '$ref' (FORMAT parquet, KV_METADATA {'probex.sample_freq_hz': '1999',
		'probex.stack_trace_format': 'symbolized_v1'})" >/dev/null
	"$PROBEX" report --json "$t" >"$TMP/a.json"
	"$PROBEX" report --json "$ref" >"$TMP/b.json" || bad "$name: report on the reference-format copy"
	check "$name: reference-format copy gives the same syscalls and processes" same "$($PY -c "
import json
a, b = json.load(open('$TMP/a.json')), json.load(open('$TMP/b.json'))
print('same' if a['syscalls'] == b['syscalls'] and len(a['processes']) == len(b['processes']) else
      'differ: %s / %s' % (a['syscalls'][:1], b['syscalls'][:1]))")"
	for f in folded speedscope chrome; do
		"$PROBEX" export "$ref" --format "$f" >/dev/null || bad "$name: export $f of the reference-format copy"
	done
done
