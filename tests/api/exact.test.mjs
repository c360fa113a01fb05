// Exact counts (probex.exact) in the viewer API: a burst recorded with a far too small ring
// buffer and a slow consumer (the test build's hook) loses most rows, yet event_type_counts
// and io_statistics give its exact call count and mark what rests on the rows kept; a
// recording without drops, and a file without probex.exact, carry no such fields.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PROBEX, getJson, qs, startViewer, stopViewer, tmpdir } from './lib.mjs';
import { traceA, write } from './traces.mjs';

const dir = tmpdir();
const BUILD = path.dirname(PROBEX);
const BURST = path.join(BUILD, 'fixtures/burst');
const asRoot = process.getuid && process.getuid() === 0;
const skip = !asRoot ? 'needs root to record' : !fs.existsSync(BURST) ? `no ${BURST} (make fixtures)` : false;

function record(name, args, env = {}) {
  const file = path.join(dir, `${name}.parquet`);
  const r = spawnSync(args[0], ['--no-viewer', '-q', '-o', file, ...args.slice(1)], {
    env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120000,
  });
  assert.equal(r.status, 0, r.stderr);
  return file;
}

const whole = async (v) => {
  const s = await getJson(v, '/api/summary');
  return { s, w: { start_ns: s.min_ts_ns, end_ns: s.max_ts_ns } };
};

test('a burst with drops: exact call counts, marked incomplete', { skip }, async () => {
  const threads = 100, calls = 2000;
  const file = record('drops', [path.join(BUILD, 'probex-test'), '--ringbuf-size', '64', '--', BURST, `${threads}`, `${calls}`],
    { PROBEX_TEST_CONSUMER_DELAY_MS: '20' });
  const v = await startViewer(file);
  try {
    const { s, w } = await whole(v);
    assert.ok(s.dropped_records > 0, `dropped_records ${s.dropped_records}`);
    assert.ok(s.exact_records >= threads * calls && s.exact_records >= s.dropped_records, `exact_records ${s.exact_records}`);
    const c = await getJson(v, `/api/event_type_counts?${qs(w)}`);
    assert.ok((c.counts.syscall_uname_exit ?? 0) < threads * calls, 'rows were dropped');
    assert.equal(c.exact_counts.syscall_uname_exit, threads * calls);
    assert.equal(c.exact_counts.syscall_uname_enter, threads * calls);
    assert.equal(c.exact_counts.process_fork ?? c.counts.process_fork, threads);
    for (const [t, n] of Object.entries(c.exact_counts)) assert.ok(n > (c.counts[t] ?? 0), `${t}: ${n} > rows`);
    // Without bounds the window is the whole trace too.
    assert.deepEqual(await getJson(v, '/api/event_type_counts'), c);
    const io = await getJson(v, `/api/io_statistics?${qs({ ...w, max_points: 10 })}`);
    // uname does no I/O: io_statistics leaves it out, marked or not.
    assert.equal(io.by_operation.find((o) => o.operation === 'uname'), undefined);
    for (const o of io.by_operation.filter((x) => x.incomplete)) assert.ok(o.total_ops < o.exact_count, o.operation);
    assert.equal(io.note, undefined);
    // A narrower window: the rows' figures only, and a note why.
    const part = { start_ns: w.start_ns + 1, end_ns: w.end_ns };
    const pc = await getJson(v, `/api/event_type_counts?${qs(part)}`);
    assert.equal(pc.exact_counts, undefined);
    assert.match(pc.note, /whole recording/);
    const pio = await getJson(v, `/api/io_statistics?${qs({ ...part, max_points: 10 })}`);
    assert.ok(pio.by_operation.every((o) => o.exact_count === undefined && o.incomplete === undefined));
    assert.match(pio.note, /whole recording/);
    assert.match((await getJson(v, `/api/syscall_latency_stats?${qs(part)}`)).note, /whole recording/);
  } finally {
    assert.equal(await stopViewer(v), 0);
  }
});

test('a recording without drops: no marks', { skip }, async () => {
  const file = record('nodrops', [PROBEX, '--', BURST, '10', '300']);
  const v = await startViewer(file);
  try {
    const { s, w } = await whole(v);
    assert.equal(s.dropped_records, undefined);
    assert.ok(s.exact_records >= 3000);
    const c = await getJson(v, `/api/event_type_counts?${qs(w)}`);
    assert.deepEqual(Object.keys(c), ['counts']);
    assert.equal(c.counts.syscall_uname_exit, 3000);
    const io = await getJson(v, `/api/io_statistics?${qs({ ...w, max_points: 10 })}`);
    assert.ok(io.by_operation.length > 0);
    for (const o of io.by_operation) assert.ok(!('exact_count' in o) && !('incomplete' in o), o.operation);
    const lat = await getJson(v, `/api/syscall_latency_stats?${qs(w)}`);
    assert.deepEqual(Object.keys(lat.read), ['count', 'avg_ns', 'p50_ns', 'p95_ns', 'max_ns']);
  } finally {
    assert.equal(await stopViewer(v), 0);
  }
});

// Hand-built: trace A's read (pid 10, process 10) and io_uring (pid 11, a thread of 10)
// with exact counts above their rows; pid 20 is a process of one thread.
const EXACT = JSON.stringify([
  { tgid: 10, event_type: 'syscall_read_exit', nr: 0, count: 5, errors: 2, total_ns: 500, hist: [0, 1, 4] },
  { tgid: 10, event_type: 'io_uring_complete', nr: 22, count: 3, errors: 0, total_ns: 90, hist: [3] },
  { tgid: 20, event_type: 'cpu_sample', nr: 0, count: 7, errors: 0, total_ns: 0, hist: [] },
  { tgid: 20, event_type: 'process_exit', nr: 0, count: 1, errors: 0, total_ns: 0, hist: [] },
  { tgid: 10, event_type: 'syscall_exit_group_unfinished', nr: 231, count: 1, errors: 0, total_ns: 0, hist: [] },
]);

test('hand-built probex.exact: latency stats, per-process scope, unfinished calls', async () => {
  const file = write(dir, 'exact', traceA, { meta: { 'probex.sample_freq_hz': '1000',
    'probex.stack_trace_format': 'symbolized_v1', 'probex.exact': EXACT, 'probex.drops': '{"ringbuf_syscall": 3, "ringbuf_cpu_sample": 4, "ringbuf_waker_stack": 9}' } });
  const v = await startViewer(file);
  try {
    const { s, w } = await whole(v);
    assert.equal(s.dropped_records, 7);
    assert.equal(s.exact_records, 17);
    const lat = await getJson(v, `/api/syscall_latency_stats?${qs(w)}`);
    assert.deepEqual(lat.read, { count: 2, avg_ns: 40, p50_ns: 40, p95_ns: 40, max_ns: 40,
      exact_count: 5, exact_errors: 2, exact_total_ns: 500, incomplete: true });
    assert.equal(lat.io_uring.exact_count, 3);
    assert.equal(lat.write.exact_count, undefined);
    const c = await getJson(v, `/api/event_type_counts?${qs(w)}`);
    // 3 io_uring rows: complete; read's enter rows: one per exit (and per unfinished call).
    assert.deepEqual(c.exact_counts, { cpu_sample: 7, syscall_read_enter: 5, syscall_read_exit: 5 });
    // pid 20 is a process of its own: its counts apply.
    const p20 = await getJson(v, `/api/pid_event_type_counts?${qs({ ...w, pid: 20 })}`);
    assert.deepEqual(p20.exact_counts, { cpu_sample: 7 });
    // pid 10's process has another thread (11): rows are per thread, counts per process.
    const p10 = await getJson(v, `/api/pid_event_type_counts?${qs({ ...w, pid: 10 })}`);
    assert.equal(p10.exact_counts, undefined);
    assert.match(p10.note, /per process/);
  } finally {
    assert.equal(await stopViewer(v), 0);
  }
});

test('damaged probex.exact or probex.drops: the trace opens, without exact fields', async () => {
  for (const [exact, drops] of [['not json', '{}'], ['[{"tgid": "x", "event_type": "cpu_sample", "count": -1}]', '{}'], ['[]', '{"ringbuf_syscall": "many"}']]) {
    const v = await startViewer(write(dir, 'bad', traceA, { meta: { 'probex.sample_freq_hz': '1000',
      'probex.stack_trace_format': 'symbolized_v1', 'probex.exact': exact, 'probex.drops': drops } }));
    try {
      const { s, w } = await whole(v);
      assert.equal(s.total_events, traceA.length);
      assert.equal(s.dropped_records, undefined, exact);
      assert.equal(s.exact_records, undefined, exact);
      assert.deepEqual(Object.keys(await getJson(v, `/api/event_type_counts?${qs(w)}`)), ['counts']);
    } finally {
      assert.equal(await stopViewer(v), 0);
    }
  }
});

test('a file without probex.exact: the fields of before, byte for byte', async () => {
  const v = await startViewer(write(dir, 'old', traceA));
  try {
    const { s, w } = await whole(v);
    assert.deepEqual(Object.keys(s), ['total_events', 'event_types', 'unique_pids', 'unique_tgids', 'min_ts_ns', 'max_ts_ns', 'cpu_sample_frequency_hz']);
    assert.deepEqual(Object.keys(await getJson(v, `/api/event_type_counts?${qs(w)}`)), ['counts']);
    const lat = await getJson(v, `/api/syscall_latency_stats?${qs({ start_ns: 120, end_ns: 200 })}`);
    assert.deepEqual(Object.keys(lat), ['read', 'write', 'io_uring', 'mmap_alloc_bytes', 'munmap_free_bytes']);
  } finally {
    assert.equal(await stopViewer(v), 0);
  }
});
