// Processes as processes, on a real recording (tests/fixtures/fdworkers.c: three busy worker
// threads, a named file written, fsynced and fdatasynced through a dup, a missing file
// opened): tgid= on the endpoints that take pid, the process's command line and CPU time,
// fd_path and errno names in event_list, I/O-only io_statistics with files, one percentile
// rule, and the CPU flame graph's period.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PROBEX, get, getJson, qs, startViewer, stopViewer, tmpdir } from './lib.mjs';

const dir = tmpdir();
const FIXTURE = path.join(path.dirname(PROBEX), 'fixtures/fdworkers');
const asRoot = process.getuid && process.getuid() === 0;
const skip = !asRoot ? 'needs root to record' : !fs.existsSync(FIXTURE) ? `no ${FIXTURE} (make fixtures)` : false;
const OUT = path.join(dir, 'named.out');

function record() {
  const file = path.join(dir, 'fdworkers.parquet');
  const r = spawnSync(PROBEX, ['--no-viewer', '-o', file, '--', FIXTURE, OUT], { encoding: 'utf8', timeout: 120000 });
  assert.equal(r.status, 3, r.stderr);
  return { file, stderr: r.stderr };
}

test('a process and its threads, command lines, files and errno names', { skip }, async () => {
  const { file, stderr } = record();
  // Quiet: a clean run names no zero counter and no unpaired syscall.
  assert.doesNotMatch(stderr, /unpaired|dropped: 0|map full: 0/, stderr);
  const v = await startViewer(file);
  try {
    const s = await getJson(v, '/api/summary');
    const w = { start_ns: s.min_ts_ns, end_ns: s.max_ts_ns };
    const lt = (await getJson(v, '/api/process_lifetimes')).processes;
    const main = lt.find((p) => p.argv && p.argv[0] === FIXTURE);
    assert.ok(main, JSON.stringify(lt));
    const tgid = main.pid;
    assert.deepEqual(main.argv, [FIXTURE, OUT]);
    assert.equal(main.tgid, tgid);
    const threads = lt.filter((p) => p.tgid === tgid);
    assert.equal(threads.length, 4);
    assert.equal(main.threads, 4);
    assert.deepEqual(s.unique_tgids, [tgid]);
    const period = 1e9 / s.cpu_sample_frequency_hz;
    assert.equal(main.cpu_ns, threads.reduce((a, p) => a + (p.pid === tgid ? main.thread_cpu_ns : p.cpu_ns), 0));
    assert.ok(main.cpu_ns > 10 * main.thread_cpu_ns, `workers' CPU counts: ${main.cpu_ns} vs ${main.thread_cpu_ns}`);

    // The flame graph of the process holds its workers' samples; of nothing, everything.
    const fg = (extra) => getJson(v, `/api/event_flamegraph?${qs({ ...w, event_type: 'cpu_sample', max_stacks: 1000000, ...extra })}`);
    const [byPid, byTgid, all] = [await fg({ pid: tgid }), await fg({ tgid }), await fg({})];
    assert.ok(byTgid.total_samples > 10 * byPid.total_samples, `${byTgid.total_samples} vs ${byPid.total_samples}`);
    assert.equal(all.total_samples, byTgid.total_samples);
    assert.equal(byTgid.total_samples * Math.floor(period), main.cpu_ns);
    assert.equal(byTgid.period_ns, Math.floor(period));
    assert.ok(byTgid.stacks.some((st) => st.frames.includes('worker')));

    // pid and tgid together: a 400 naming tgid.
    const both = await get(v, `/api/event_flamegraph?${qs({ ...w, event_type: 'cpu_sample', max_stacks: 10, pid: tgid, tgid })}`);
    assert.equal(both.status, 400);
    assert.equal(both.json.parameter, 'tgid');

    const counts = await getJson(v, `/api/pid_event_type_counts?tgid=${tgid}`);
    let sum = 0;
    for (const p of threads) sum += (await getJson(v, `/api/pid_event_type_counts?pid=${p.pid}`)).counts.cpu_sample ?? 0;
    assert.equal(counts.counts.cpu_sample, sum);

    // event_list of the process: every thread's rows, in time order.
    const el = await getJson(v, `/api/event_list?${qs({ ...w, tgid, limit: 10000, offset: 0 })}`);
    let rows = 0;
    for (const p of threads) rows += (await getJson(v, `/api/event_list?${qs({ ...w, pid: p.pid, limit: 1, offset: 0 })}`)).total_in_range;
    assert.equal(el.total_in_range, rows);
    assert.equal(new Set(el.events.map((e) => e.pid)).size, 4);
    for (let i = 1; i < el.events.length; i++) assert.ok(el.events[i].ts_ns >= el.events[i - 1].ts_ns);
    const fsync = el.events.find((e) => e.event_type === 'syscall_fsync_exit');
    assert.equal(fsync.fd_path, OUT);
    const fdatasync = el.events.find((e) => e.event_type === 'syscall_fdatasync_enter');
    assert.equal(fdatasync.fd_path, OUT, 'followed through dup');
    const stdoutWrite = el.events.find((e) => e.event_type === 'syscall_write_enter' && e.fd === 1);
    assert.ok(stdoutWrite && stdoutWrite.fd_path, 'stdout named from /proc at the start');
    const enoent = el.events.find((e) => e.event_type === 'syscall_openat_exit' && e.ret < 0);
    assert.equal(enoent.ret, -2);
    assert.equal(enoent.errno, 'ENOENT');
    const exec = el.events.find((e) => e.event_type === 'process_exec');
    assert.deepEqual(exec.argv, [FIXTURE, OUT]);

    // io_statistics: only I/O, with the files; one percentile rule with the latency row.
    const io = await getJson(v, `/api/io_statistics?${qs({ ...w, tgid, max_points: 10 })}`);
    const ops = io.by_operation.map((o) => o.operation);
    for (const not of ['futex', 'mprotect', 'rt_sigprocmask', 'openat', 'close', 'mmap'])
      assert.ok(!ops.includes(not), `${not} listed as I/O: ${ops}`);
    const op = (n) => io.by_operation.find((o) => o.operation === n);
    assert.deepEqual(op('fsync').files.map((f) => f.path), [OUT]);
    const wf = op('write').files.find((f) => f.path === OUT);
    assert.equal(wf.ops, 17);
    assert.equal(wf.bytes, 16 * 4096 + 10);
    const lat = await getJson(v, `/api/syscall_latency_stats?${qs({ ...w, tgid })}`);
    assert.equal(lat.write.p95_ns, op('write').p95_event.latency_ns);
    assert.equal(lat.write.p50_ns, op('write').p50_event.latency_ns);
    assert.equal(lat.write.count, op('write').total_ops);
  } finally {
    assert.equal(await stopViewer(v), 0);
  }
});
