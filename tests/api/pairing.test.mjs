// Enter/exit pairing across windows when an exit was lost (trace B), and the NULLs the
// reference rejects at query time (trace C).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { get, getJson, qs, startViewer, stopViewer, tmpdir } from './lib.mjs';
import { traceB, traceC, write } from './traces.mjs';

let b, c;
before(async () => {
  const dir = tmpdir();
  [b, c] = await Promise.all([startViewer(write(dir, 'b', traceB)), startViewer(write(dir, 'c', traceC))]);
});
after(async () => {
  assert.equal(await stopViewer(b), 0);
  assert.equal(await stopViewer(c), 0);
});

const read = (ts, lat, pid, frame) => ({ ts_ns: ts, latency_ns: lat, event_type: 'read', pid, stack_trace: ['[user]', frame] });

test('lost exit inside the window: FIFO replays it (each exit takes the oldest enter)', async () => {
  // pid 30: E10 E20 X30 E40 X50 X60 -> X30:E10 (20), X50:E20 (30), X60:E40 (20); pid 31: 10.
  // Order (lat, pid, ts): (10,31,25) (20,30,30) (20,30,60) (30,30,50).
  const s = await getJson(b, `/api/syscall_latency_stats?${qs({ start_ns: 0, end_ns: 100 })}`);
  assert.deepEqual(s.read, { count: 4, avg_ns: 20, p50_ns: 20, p95_ns: 30, max_ns: 30 });	// the table's rule: index min(n*p/100, n-1)
  const io = await getJson(b, `/api/io_statistics?${qs({ start_ns: 0, end_ns: 100 })}`);
  assert.equal(io.by_operation.length, 1);
  const r = io.by_operation[0];
  assert.deepEqual([r.operation, r.total_ops, r.total_bytes, r.avg_latency_ns], ['read', 4, 19, 20]);
  assert.deepEqual(r.p50_event, read(60, 20, 30, 'c'));	// index 4*50/100 = 2
  assert.deepEqual(r.p95_event, read(50, 30, 30, 'b'));	// index 3
  assert.deepEqual(r.p99_event, read(50, 30, 30, 'b'));
  assert.deepEqual(r.max_event, read(50, 30, 30, 'b'));
  assert.deepEqual(r.latencies_ns, [10, 20, 20, 30]);
  assert.deepEqual(r.sizes_bytes, [3, 4, 5, 7]);
  assert.deepEqual(await getJson(b, `/api/syscall_latency_stats?${qs({ start_ns: 0, end_ns: 100, pid: 30 })}`).then((x) => x.read),
    { count: 3, avg_ns: 23, p50_ns: 20, p95_ns: 30, max_ns: 30 });
});

test('lost exit before the window: plain adjacent pairs', async () => {
  // From 15: E20 X30 (10), E40 X50 (10), X60 finds nothing; pid 31 (10).  Ties by pid, ts.
  const io = await getJson(b, `/api/io_statistics?${qs({ start_ns: 15, end_ns: 100 })}`);
  const r = io.by_operation[0];
  assert.deepEqual([r.total_ops, r.total_bytes, r.avg_latency_ns], [3, 14, 10]);
  assert.deepEqual(r.p50_event, read(50, 10, 30, 'c'));
  assert.deepEqual(r.max_event, read(25, 10, 31, 'd'));
  assert.deepEqual(r.latencies_ns, [10, 10, 10]);
  // Ending at 35: only X30, which takes E10 (queued first).
  assert.deepEqual(await getJson(b, `/api/syscall_latency_stats?${qs({ start_ns: 0, end_ns: 35, pid: 30 })}`).then((x) => x.read),
    { count: 1, avg_ns: 20, p50_ns: 20, p95_ns: 20, max_ns: 20 });
});

test('NULL ret on a counted pair fails io_statistics (the reference does), not latency stats', async () => {
  const s = await getJson(c, `/api/syscall_latency_stats?${qs({ start_ns: 0, end_ns: 20, pid: 40 })}`);
  assert.deepEqual(s.read, { count: 1, avg_ns: 10, p50_ns: 10, p95_ns: 10, max_ns: 10 });
  const bad = await get(c, `/api/io_statistics?${qs({ start_ns: 0, end_ns: 100 })}`);
  assert.equal(bad.status, 500);
  assert.match(bad.json.error, /query failed: .*'ret'/);
  // Outside the window the pair does not count and nothing fails.
  const ok = await getJson(c, `/api/io_statistics?${qs({ start_ns: 15, end_ns: 100 })}`);
  assert.deepEqual(ok.by_operation, []);
});

test('NULL count on mmap_enter fails syscall_latency_stats; memory_statistics reads it as 0', async () => {
  const bad = await get(c, `/api/syscall_latency_stats?${qs({ start_ns: 25, end_ns: 100 })}`);
  assert.equal(bad.status, 500);
  assert.match(bad.json.error, /syscall_mmap_enter row missing required count/);
  const m = await getJson(c, `/api/memory_statistics?${qs({ start_ns: 25, end_ns: 100 })}`);
  assert.deepEqual(m.by_operation.map((o) => [o.operation, o.total_ops, o.total_bytes]), [['mmap', 1, 0]]);
});

test('NULL exit_code fails process_lifetimes', async () => {
  const r = await get(c, '/api/process_lifetimes');
  assert.equal(r.status, 500);
  assert.match(r.json.error, /process_exit row missing required exit_code/);
});
