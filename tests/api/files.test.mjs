// Which files open: probex's own format (extra columns, new event types, stack weights),
// and files that must be refused with one clear error naming the file, before serving.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { getJson, qs, runProbex, startViewer, stopViewer, tmpdir } from './lib.mjs';
import { traceA, write } from './traces.mjs';

const dir = tmpdir();

test("probex's own files: extra columns, unknown types, stack_weight scaling, latency_ns", async () => {
  const X = ['[user]', 'main', 'hot'], Y = ['[user]', 'main', 'cold'];
  const file = write(dir, 'own', [
    { event_type: 'cpu_sample', ts_ns: 30, pid: 1, tgid: 1, stack_trace: X, stack_weight: 2 },
    { event_type: 'process_exec', ts_ns: 5, pid: 1, tgid: 1, filename: '/bin/x', cpu: 300 },
    { event_type: 'cpu_sample', ts_ns: 10, pid: 1, tgid: 1, stack_trace: X, stack_weight: 3 },
    { event_type: 'cpu_sample', ts_ns: 20, pid: 1, tgid: 1, stack_trace: Y },
    { event_type: 'syscall_read_enter', ts_ns: 40, pid: 1, tgid: 1, count: 8, stack_trace: Y, stack_weight: 1 },
    { event_type: 'syscall_read_exit', ts_ns: 50, pid: 1, tgid: 1, ret: 8, latency_ns: 10, child_tgid: 7, is_thread: true },
  ], { columns: { cpu: 'UINTEGER', latency_ns: 'UBIGINT', stack_weight: 'UINTEGER', child_tgid: 'UINTEGER',
    is_thread: 'BOOLEAN', filename: 'VARCHAR' }, meta: { 'probex.sample_freq_hz': '1999',
    'probex.stack_trace_format': 'symbolized_v1', 'probex.version': '0.2.0' } });
  const v = await startViewer(file);
  try {
    const s = await getJson(v, '/api/summary');
    assert.deepEqual(s.event_types, ['cpu_sample', 'process_exec', 'syscall_read_enter', 'syscall_read_exit']);
    assert.equal(s.cpu_sample_frequency_hz, 1999);
    // Sampled stacks count for the events they stand for: 3 + 1 (NULL weight) + 2.
    const f = await getJson(v, `/api/event_flamegraph?${qs({ start_ns: 0, end_ns: 100, pid: 1, event_type: 'cpu_sample', max_stacks: 100 })}`);
    assert.equal(f.total_samples, 6);
    assert.ok(f.svg.includes('<title>hot (5 samples, 83.33%)</title>'));
    assert.ok(f.svg.includes('<title>cold (1 samples, 16.67%)</title>'));
    const l = await getJson(v, `/api/event_list?${qs({ start_ns: 0, end_ns: 100, pid: 1, limit: 10, offset: 0 })}`);
    assert.deepEqual(l.events.map((e) => [e.ts_ns, e.event_type, e.latency_ns]),
      [[5, 'process_exec', null], [10, 'cpu_sample', null], [20, 'cpu_sample', null], [30, 'cpu_sample', null],
        [40, 'syscall_read_enter', null], [50, 'syscall_read_exit', 10]]);
    const lat = await getJson(v, `/api/syscall_latency_stats?${qs({ start_ns: 0, end_ns: 100 })}`);
    assert.deepEqual(lat.read, { count: 1, avg_ns: 10, p50_ns: 10, p95_ns: 10, max_ns: 10 });
  } finally {
    assert.equal(await stopViewer(v), 0);
  }
});

// Latencies are held in 32 bits a row and stack weights in 16, the larger values on the
// side: values on both sides of the limits must come back exact, in event_list and as
// flame graph weights.
test('latency_ns at and past 2^32 - 1 ns, stack_weight past 2^16 - 1', async () => {
  const S = ['[user]', 'main', 'wait'];
  const lats = [4294967294, 4294967295, 4294967296, 1099511627776, 7];
  const weights = [65534, 65535, 65536, 4000000000, 3];
  const file = write(dir, 'biglat', lats.map((latency_ns, i) => (
    { event_type: 'off_cpu', ts_ns: 10 * (i + 1), pid: 1, tgid: 1, stack_trace: S, latency_ns })).concat(
    weights.map((stack_weight, i) => (
      { event_type: 'cpu_sample', ts_ns: 10 * (i + 1) + 5, pid: 1, tgid: 1, stack_trace: S, stack_weight }))),
  { columns: { latency_ns: 'UBIGINT', stack_weight: 'UINTEGER' }, meta: { 'probex.sample_freq_hz': '1999',
    'probex.stack_trace_format': 'symbolized_v1', 'probex.version': '0.2.0' } });
  const v = await startViewer(file);
  try {
    const l = await getJson(v, `/api/event_list?${qs({ start_ns: 0, end_ns: 100, pid: 1, limit: 10, offset: 0 })}`);
    assert.deepEqual(l.events.filter((e) => e.event_type === 'off_cpu').map((e) => e.latency_ns), lats);
    const f = await getJson(v, `/api/event_flamegraph?${qs({ start_ns: 0, end_ns: 100, pid: 1, event_type: 'off_cpu', max_stacks: 100 })}`);
    assert.equal(f.total_samples, lats.reduce((a, b) => a + b, 0));
    const c = await getJson(v, `/api/event_flamegraph?${qs({ start_ns: 0, end_ns: 100, pid: 1, event_type: 'cpu_sample', max_stacks: 100 })}`);
    assert.equal(c.total_samples, weights.reduce((a, b) => a + b, 0));
  } finally {
    assert.equal(await stopViewer(v), 0);
  }
});

// Times are held as 32 bits above their block's least (rows of two pids far apart in
// time share a block here) and operations' latencies and sizes in 32 bits: values past
// 2^32 must come back exact.
test('times, operation latencies and sizes past 2^32', async () => {
  const G = 5000000000, B = 6000000000;
  const file = write(dir, 'bigops', [
    { event_type: 'syscall_read_enter', ts_ns: 1000, pid: 1, tgid: 1, fd: 3, count: B },
    { event_type: 'syscall_read_exit', ts_ns: 1000 + G, pid: 1, tgid: 1, ret: B, latency_ns: G },
    { event_type: 'syscall_read_enter', ts_ns: 2000 + G, pid: 1, tgid: 1, fd: 3, count: 10 },
    { event_type: 'syscall_read_exit', ts_ns: 2100 + G, pid: 1, tgid: 1, ret: 10, latency_ns: 100 },
    { event_type: 'syscall_write_enter', ts_ns: 3 * G, pid: 2, tgid: 2, fd: 1, count: 7 },
    { event_type: 'syscall_write_exit', ts_ns: 3 * G + 50, pid: 2, tgid: 2, ret: 7, latency_ns: 50 },
  ], { columns: { latency_ns: 'UBIGINT' } });
  const v = await startViewer(file);
  const w = { start_ns: 0, end_ns: 4 * G };
  try {
    const s = await getJson(v, `/api/syscall_latency_stats?${qs(w)}`);
    assert.deepEqual(s.read, { count: 2, avg_ns: (G + 100) / 2, p50_ns: G, p95_ns: G, max_ns: G });	// index min(n*p/100, n-1)
    const io = await getJson(v, `/api/io_statistics?${qs(w)}`);
    const read = io.by_operation.find((o) => o.operation === 'read');
    assert.equal(read.total_bytes, B + 10);
    assert.deepEqual(read.latencies_ns, [100, G]);
    assert.deepEqual(read.sizes_bytes, [10, B]);
    assert.equal(read.max_event.ts_ns, 1000 + G);
    const p = await getJson(v, '/api/process_lifetimes');
    assert.deepEqual(p.processes.map((x) => [x.pid, x.start_ns, x.end_ns]),
      [[1, 1000, 2100 + G], [2, 3 * G, 3 * G + 50]]);
    const l = await getJson(v, `/api/event_list?${qs({ ...w, pid: 2, limit: 10, offset: 0 })}`);
    assert.deepEqual(l.events.map((e) => e.ts_ns), [3 * G, 3 * G + 50]);
  } finally {
    assert.equal(await stopViewer(v), 0);
  }
});

function refused(file, pattern) {
  const r = runProbex(['--view', file, '-p', '0']);
  assert.equal(r.signal, null, `crashed: ${r.stderr}`);
  assert.notEqual(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /viewer at/);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.ok(lines[0].includes(file), r.stderr);
  assert.match(lines[0], pattern);
}

test('files the viewer refuses, each with one line naming the file', () => {
  const good = write(dir, 'good', traceA);
  const bytes = fs.readFileSync(good);
  const put = (name, data) => { const p = path.join(dir, name); fs.writeFileSync(p, data); return p; };

  refused(path.join(dir, 'missing.parquet'), /cannot open: No such file/);
  refused(put('text.parquet', 'hello, world\n'.repeat(10)), /not a Parquet file/);
  refused(put('truncated.parquet', bytes.subarray(0, Math.floor(bytes.length / 2))), /truncated Parquet file/);
  refused(put('empty.parquet', ''), /not a Parquet file/);
  const garbage = Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(200, 0x5a), Buffer.from([100, 0, 0, 0]), Buffer.from('PAR1')]);
  refused(put('garbage.parquet', garbage), /unreadable Parquet metadata/);
  // The footer's metadata scrambled.
  const footer = Buffer.from(bytes);
  const flen = footer.readUInt32LE(footer.length - 8);
  for (let i = footer.length - 8 - flen; i < footer.length - 8; i += 3) footer[i] ^= 0xff;
  refused(put('footer.parquet', footer), /unreadable Parquet (metadata|schema)|cannot read/);

  refused(write(dir, 'nometa', traceA, { meta: null }), /required parquet metadata key 'probex.sample_freq_hz' missing/);
  refused(write(dir, 'freq0', traceA, { meta: { 'probex.sample_freq_hz': '0', 'probex.stack_trace_format': 'symbolized_v1' } }),
    /'probex.sample_freq_hz' must be > 0/);
  refused(write(dir, 'freqx', traceA, { meta: { 'probex.sample_freq_hz': '12x', 'probex.stack_trace_format': 'symbolized_v1' } }),
    /invalid 'probex.sample_freq_hz' metadata value/);
  refused(write(dir, 'nofmt', traceA, { meta: { 'probex.sample_freq_hz': '99' } }),
    /required parquet metadata key 'probex.stack_trace_format' missing/);
  refused(write(dir, 'fmt', traceA, { meta: { 'probex.sample_freq_hz': '99', 'probex.stack_trace_format': 'raw' } }),
    /must be 'symbolized_v1', got 'raw'/);
  refused(write(dir, 'nostack', traceA, { drop: ['stack_trace'] }), /missing required stack_trace column/);
  refused(write(dir, 'strstack', traceA.map((r) => ({ ...r, stack_trace: r.stack_trace && r.stack_trace.join(';') })),
    { columns: { stack_trace: 'VARCHAR' } }), /column 'stack_trace' must be a list of strings, got VARCHAR/);
  refused(write(dir, 'legacy', traceA, { columns: { stack_frames: 'VARCHAR' } }), /legacy stack columns/);
  refused(write(dir, 'nots', traceA, { drop: ['ts_ns'] }), /missing column 'ts_ns'/);
  refused(write(dir, 'strts', traceA.map((r) => ({ ...r, ts_ns: String(r.ts_ns) })), { columns: { ts_ns: 'VARCHAR' } }),
    /column 'ts_ns' must be an integer, got VARCHAR/);
});

test('damage found while loading stops the viewer with an error naming the file', async () => {
  const file = path.join(dir, 'synth.parquet');
  let r = runProbex(['synth', '-o', file, '--events', '20000', '--seed', '3'], 120000);
  assert.equal(r.code, 0, r.stderr);
  // Overwrite the middle of the column data (page headers and compressed pages).
  const data = fs.readFileSync(file);
  data.fill(0xff, Math.floor(data.length * 0.2), Math.floor(data.length * 0.6));
  const bad = path.join(dir, 'damaged.parquet');
  fs.writeFileSync(bad, data);
  r = runProbex(['--view', bad, '-p', '0'], 60000);
  assert.equal(r.signal, null, `crashed: ${r.stderr}`);
  assert.equal(r.code, 1, r.stderr);
  const errors = r.stderr.split('\n').filter((l) => l.includes('error:'));
  assert.equal(errors.length, 1, r.stderr);
  assert.ok(errors[0].includes(bad), r.stderr);
});

test('a NULL label inside a stack list is refused while loading', async () => {
  const file = write(dir, 'nulllabel', [{ event_type: 'cpu_sample', ts_ns: 1, pid: 1, tgid: 1, stack_trace: ['[user]', null] }]);
  const r = runProbex(['--view', file, '-p', '0'], 30000);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /NULL label/);
  assert.ok(r.stderr.includes(file));
});
