// event_list's order=ts|latency, search=TEXT and payload=0, on hand-built traces whose
// answers are worked out from their rows: pid 10 "main" makes three syscalls of known
// latency, one of them through a stack with a distinctive frame (and, in the second
// file, opens a named file first).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { get, getJson, qs, startViewer, stopViewer, tmpdir, writeTrace } from './lib.mjs';

const slow = ['[user]', 'main', 'flush_journal', '[kernel]', 'do_fsync'];
const rd = ['[user]', 'main', 'load_config', '[kernel]', 'ksys_read'];
const rows = [
  { event_type: 'syscall_read_enter', ts_ns: 100, pid: 10, tgid: 10, process_name: 'main', fd: 3, count: 10, stack_trace: rd },
  { event_type: 'syscall_read_exit', ts_ns: 130, pid: 10, tgid: 10, process_name: 'main', ret: 10, latency_ns: 30, stack_trace: rd },
  { event_type: 'syscall_fsync_enter', ts_ns: 200, pid: 10, tgid: 10, process_name: 'main', fd: 3, stack_trace: slow },
  { event_type: 'syscall_fsync_exit', ts_ns: 700, pid: 10, tgid: 10, process_name: 'main', ret: 0, latency_ns: 500, stack_trace: slow },
  { event_type: 'syscall_read_enter', ts_ns: 800, pid: 10, tgid: 10, process_name: 'main', fd: 3, count: 10, stack_trace: rd },
  { event_type: 'syscall_read_exit', ts_ns: 890, pid: 10, tgid: 10, process_name: 'main', ret: -2, latency_ns: 90, stack_trace: rd },
  { event_type: 'cpu_sample', ts_ns: 900, pid: 11, tgid: 10, process_name: 'worker', stack_trace: ['[user]', 'worker_main'] },
];
const ALL = { start_ns: 0, end_ns: 1000, pid: 10, offset: 0 };
// The same rows in a file with probex's filename column: the open names the file.
const withPath = [
  { event_type: 'syscall_openat_enter', ts_ns: 50, pid: 10, tgid: 10, process_name: 'main', fd: -100, filename: '/etc/Probex.conf', stack_trace: rd },
  { event_type: 'syscall_openat_exit', ts_ns: 60, pid: 10, tgid: 10, process_name: 'main', ret: 3, latency_ns: 10, stack_trace: rd },
  ...rows,
];
let v, vp;
before(async () => {
  const dir = tmpdir();
  [v, vp] = await Promise.all([
    startViewer(writeTrace(`${dir}/evlist.parquet`, rows, { columns: { latency_ns: 'UBIGINT' } })),
    startViewer(writeTrace(`${dir}/evpath.parquet`, withPath, { columns: { latency_ns: 'UBIGINT', filename: 'VARCHAR' } })),
  ]);
});
after(async () => {
  assert.equal(await stopViewer(v), 0);
  assert.equal(await stopViewer(vp), 0);
});

const list = async (p) => {
  const r = await getJson(v, `/api/event_list?${qs({ ...ALL, ...p })}`);
  return { ts: r.events.map((e) => e.ts_ns), total: r.total_in_range };
};

test('order=latency: longest first, rows without a latency last in time order; paging applies', async () => {
  assert.deepEqual(await list({ limit: 10, order: 'latency' }), { ts: [700, 890, 130, 100, 200, 800], total: 6 });
  assert.deepEqual(await list({ limit: 2, offset: 1, order: 'latency' }), { ts: [890, 130], total: 6 });
  assert.deepEqual(await list({ limit: 10, order: 'ts' }), { ts: [100, 130, 200, 700, 800, 890], total: 6 });
  assert.deepEqual(await list({ limit: 10, order: 'latency', event_types: 'syscall_read_exit' }), { ts: [890, 130], total: 2 });
});

test('search: type, thread name or a stack frame, case-insensitive', async () => {
  assert.deepEqual(await list({ limit: 10, search: 'FLUSH_journal' }), { ts: [200, 700], total: 2 });
  assert.deepEqual(await list({ limit: 10, search: 'read_exit' }), { ts: [130, 890], total: 2 });
  assert.deepEqual(await list({ limit: 10, search: 'mai' }), { ts: [100, 130, 200, 700, 800, 890], total: 6 });
  assert.deepEqual(await list({ limit: 10, search: 'nowhere' }), { ts: [], total: 0 });
  assert.deepEqual(await list({ limit: 1, search: 'ksys', order: 'latency' }), { ts: [890], total: 4 });
  assert.deepEqual(await list({ limit: 10, search: 'ksys', event_types: 'syscall_fsync_exit' }), { ts: [], total: 0 });
});

test('search: a path (filename, where the file has the column) matches its row', async () => {
  const r = await getJson(vp, `/api/event_list?${qs({ ...ALL, limit: 10, search: 'probex.CONF' })}`);
  assert.deepEqual(r.events.map((e) => [e.ts_ns, e.filename]), [[50, '/etc/Probex.conf']]);
  assert.equal(r.total_in_range, 1);
  // A file without the column: no row matches by path, and no error.
  assert.deepEqual(await list({ limit: 10, search: 'probex.conf' }), { ts: [], total: 0 });
});

test('payload=0: the rows without their other columns', async () => {
  const full = await getJson(v, `/api/event_list?${qs({ ...ALL, limit: 1, order: 'latency' })}`);
  assert.equal(full.events[0].fd === undefined && full.events[0].ret, 0, 'the fsync exit carries ret');
  const bare = await getJson(v, `/api/event_list?${qs({ ...ALL, limit: 1, order: 'latency', payload: 0 })}`);
  assert.deepEqual(Object.keys(bare.events[0]), ['ts_ns', 'latency_ns', 'event_type', 'pid', 'stack_trace']);
  assert.equal(bare.events[0].latency_ns, 500);
  assert.equal(bare.payload_error, undefined);
});

test('order must be ts or latency', async () => {
  const r = await get(v, `/api/event_list?${qs({ ...ALL, limit: 1, order: 'size' })}`);
  assert.equal(r.status, 400);
  assert.equal(r.json.parameter, 'order');
});
