#!/usr/bin/env bash
# Command lines, files and a quiet run: argv on process_exec rows (a loop of gzips, a
# `make -j2` whose cc1s name their source files, an attached process's from /proc),
# fd_path through a shell's redirections and fork, the end-of-run line naming only what
# was lost, and a busy viewer port after a recording.
source "$(dirname "$0")/lib.sh"

# A loop of gzips: each exec row carries its own command line; each gzip's stdout, set up
# by the shell (openat, dup2, close) before the fork, is named.
"$PROBEX" -o "$TMP/gz.parquet" --no-viewer -- sh -c \
	'for i in 1 2 3 4 5; do gzip -c -$i /etc/hostname > '"$TMP"'/out$i.gz; done' 2>"$TMP/gz.err"
assert_eq "gzip loop: exit status" 0 $?
assert_eq "gzip loop: five command lines" "gzip -c -1 /etc/hostname|gzip -c -2 /etc/hostname|gzip -c -3 /etc/hostname|gzip -c -4 /etc/hostname|gzip -c -5 /etc/hostname" \
	"$(q "$TMP/gz.parquet" "SELECT string_agg(array_to_string(argv, ' '), '|' ORDER BY ts_ns) FROM events WHERE event_type = 'process_exec' AND filename LIKE '%gzip'")"
assert_eq "gzip loop: each gzip's writes name its own file" 5 \
	"$(q "$TMP/gz.parquet" "SELECT count(DISTINCT fd_path) FROM events WHERE event_type = 'syscall_write_enter' AND fd = 1 AND fd_path LIKE '$TMP/out_.gz' AND process_name = 'gzip'")"
assert_eq "gzip loop: a write names the file its process opened" 0 \
	"$(q "$TMP/gz.parquet" "SELECT count(*) FROM events e WHERE event_type = 'syscall_write_enter' AND fd = 1 AND process_name = 'gzip' AND fd_path <> '$TMP/out' || (SELECT regexp_extract(array_to_string(argv, ' '), '-([0-9])', 1) FROM events x WHERE x.event_type = 'process_exec' AND x.pid = e.pid) || '.gz'")"
"$PROBEX" report --json "$TMP/gz.parquet" >"$TMP/gz.json"
assert_eq "report: a file's I/O calls and bytes" \
	"$(q "$TMP/gz.parquet" "SELECT count(*) || ' ' || sum(ret) FROM events WHERE event_type = 'syscall_write_exit' AND fd_path = '$TMP/out3.gz'")" \
	"$(python3 -c "
import json
f = [x for x in json.load(open('$TMP/gz.json'))['files'] if x['path'] == '$TMP/out3.gz']
print(f[0]['calls'], f[0]['bytes'])")"
grep -q "unpaired" "$TMP/gz.err" && fail "a clean run reports unpaired syscalls: $(cat "$TMP/gz.err")"
grep -Eq ": 0 |dropped: 0" "$TMP/gz.err" && fail "the end-of-run line names zero counters: $(cat "$TMP/gz.err")"
echo "ok: the end-of-run line: $(grep events "$TMP/gz.err")"

# make -j2: which cc1 compiled which file.
mkdir -p "$TMP/mk"
for f in alpha beta delta; do echo "int $f(void) { return 1; }" >"$TMP/mk/$f.c"; done
printf 'all: alpha.o beta.o delta.o\n%%.o: %%.c\n\tcc -c $< -o $@\n' >"$TMP/mk/Makefile"
"$PROBEX" -q -o "$TMP/mk.parquet" --no-viewer -- make -s -j2 -C "$TMP/mk"
assert_eq "make -j2: exit status" 0 $?
assert_eq "make -j2: each cc1 names its source" "alpha.c beta.c delta.c" \
	"$(q "$TMP/mk.parquet" "SELECT string_agg(f, ' ' ORDER BY f) FROM (SELECT DISTINCT regexp_extract(array_to_string(argv, ' '), '([a-z]+\\.c)', 1) AS f FROM events WHERE event_type = 'process_exec' AND filename LIKE '%cc1')")"
"$PROBEX" report --json "$TMP/mk.parquet" >"$TMP/mk.json"
assert_eq "make -j2: the report's processes carry their command lines and CPU time" 3 \
	"$(python3 -c "
import json
p = json.load(open('$TMP/mk.json'))['processes']
print(sum(1 for x in p if x['argv'] and x['argv'][0].endswith('cc1') and x['cpu_ns'] is not None))")"

# Attached: the command line and open files from /proc.
exec 7>"$TMP/attached.out"
sh -c 'while :; do echo x >&7; sleep 0.05; done' &
loop=$!
exec 7>&-
sleep 0.2
"$PROBEX" -q -o "$TMP/at.parquet" --no-viewer --pid "$loop" --duration 1
kill "$loop"; wait "$loop" 2>/dev/null
assert_eq "attached: the command line from /proc" "[\"sh\",\"-c\",\"while :; do echo x >&7; sleep 0.05; done\"]" \
	"$(q "$TMP/at.parquet" "SELECT json_extract(decode(value), '\$.\"$loop\"')::VARCHAR FROM parquet_kv_metadata('$TMP/at.parquet') WHERE decode(key) = 'probex.cmdlines'")"
# echo x >&7: the shell dup2s fd 7 onto 1 around the write.
assert_ge "attached: writes through a dup of fd 7 name its file" 1 \
	"$(q "$TMP/at.parquet" "SELECT count(*) FROM events WHERE event_type = 'syscall_write_enter' AND fd = 1 AND fd_path = '$TMP/attached.out'")"

# A busy viewer port: a free one instead, and the command's status.
python3 -c "
import socket, time
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(60)" >"$TMP/port" &
holder=$!
for _ in $(seq 50); do [ -s "$TMP/port" ] && break; sleep 0.1; done
port=$(cat "$TMP/port")
"$PROBEX" -o "$TMP/p.parquet" -p "$port" -- sh -c 'exit 5' 2>"$TMP/p.err" &
pp=$!
for _ in $(seq 100); do grep -q "ready in" "$TMP/p.err" && break; sleep 0.1; done
grep -q "port $port is busy" "$TMP/p.err" || fail "no word of the busy port: $(cat "$TMP/p.err")"
grep -q "viewer at http://127.0.0.1:" "$TMP/p.err" || fail "no viewer URL: $(cat "$TMP/p.err")"
kill -INT "$pp"
wait_exit "$pp" 20
assert_eq "busy port: probex exits with the command's status" 5 $?
kill "$holder"

# A command line past 4 KiB is cut there, and counted.
"$PROBEX" -q -o "$TMP/long.parquet" --no-viewer -- sh -c 'exec /bin/true $(seq 1 1500)'
assert_eq "a long command line: cut and counted" "1 1" \
	"$(q "$TMP/long.parquet" "SELECT json_extract(decode(value), '\$.argv_truncated') FROM parquet_kv_metadata('$TMP/long.parquet') WHERE decode(key) = 'probex.drops'") $(q "$TMP/long.parquet" "SELECT count(*) FROM events WHERE event_type = 'process_exec' AND argv[1] = '/bin/true' AND len(array_to_string(argv, ' ')) BETWEEN 4000 AND 4096")"

# --syscalls without the calls that close descriptors: no path is guessed.
"$PROBEX" -q -o "$TMP/io.parquet" --no-viewer --syscalls=%io -- "$FIXTURES/fdworkers" "$TMP/io.out" 1000 >/dev/null
assert_eq "--syscalls=%io: no fd_path" 0 "$(q "$TMP/io.parquet" "SELECT count(*) FROM events WHERE fd_path IS NOT NULL")"
