// Syscalls past the reference's: each one with enter and exit rows is an operation of
// io_statistics' by_operation, after the reference's own (which keep their answers), with
// bytes from ret for the read/write family.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getJson, qs, startViewer, stopViewer, tmpdir } from './lib.mjs';
import { write } from './traces.mjs';

let v;
const R = (event_type, ts_ns, extra = {}) => ({ event_type, ts_ns, pid: 10, tgid: 10, process_name: 'main', ...extra });

before(async () => {
  const rows = [
    R('syscall_read_enter', 100, { count: 10, fd: 3 }), R('syscall_read_exit', 110, { ret: 10 }),
    // pread64 three times: 20, 30 and an error; one openat; an exit_group enter with no exit.
    R('syscall_pread64_enter', 200, { fd: 3, count: 20 }), R('syscall_pread64_exit', 210, { ret: 20 }),
    R('syscall_pread64_enter', 300, { fd: 3, count: 30 }), R('syscall_pread64_exit', 340, { ret: 30 }),
    R('syscall_pread64_enter', 400, { fd: 3, count: 30 }), R('syscall_pread64_exit', 401, { ret: -9 }),
    R('syscall_openat_enter', 500, { fd: -100 }), R('syscall_openat_exit', 600, { ret: 3 }),
    R('syscall_exit_group_enter', 700),
    R('syscall_io_uring_enter_enter', 800, { fd: 5 }), R('syscall_io_uring_enter_exit', 900, { ret: 1 }),
  ];
  v = await startViewer(write(tmpdir(), 'sys', rows));
});
after(async () => assert.equal(await stopViewer(v), 0));

test('io_statistics: the reference operations first, then the other I/O syscalls by count', async () => {
  const got = await getJson(v, `/api/io_statistics?${qs({ start_ns: 0, end_ns: 1000 })}`);
  // openat does no I/O (syscall__is_io): left out.
  assert.deepEqual(got.by_operation.map((o) => [o.operation, o.total_ops, o.total_bytes, o.avg_latency_ns]), [
    ['read', 1, 10, 10],
    ['pread64', 3, 50, 17],	// (10 + 40 + 1) / 3
  ]);
  assert.equal(got.total_ops, 4);
  assert.equal(got.total_bytes, 60);
  // A window cutting a pair off counts only whole pairs, as for the reference's operations.
  const part = await getJson(v, `/api/io_statistics?${qs({ start_ns: 205, end_ns: 1000 })}`);
  assert.deepEqual(part.by_operation.map((o) => [o.operation, o.total_ops]), [['pread64', 2]]);
  // all_syscalls=1: every syscall, as before.
  const every = await getJson(v, `/api/io_statistics?${qs({ start_ns: 0, end_ns: 1000, all_syscalls: 1 })}`);
  assert.deepEqual(every.by_operation.map((o) => o.operation), ['read', 'pread64', 'openat']);
  assert.equal(part.by_operation[0].max_event.event_type, 'pread64');
});

test('syscall types are counted like any other', async () => {
  const got = await getJson(v, `/api/event_type_counts?${qs({ start_ns: 0, end_ns: 1000 })}`);
  assert.equal(got.counts.syscall_pread64_enter, 3);
  assert.equal(got.counts.syscall_exit_group_enter, 1);
});

test('off_cpu flame graph: weighted by blocked time', async () => {
  const dir = tmpdir();
  const blocked = (ts_ns, latency_ns, stack_trace) => ({ event_type: 'off_cpu', ts_ns, pid: 7, tgid: 7, latency_ns, stack_weight: 1, stack_trace });
  const w = await startViewer(write(dir, 'off', [
    blocked(10, 1000, ['[user]', 'main', 'wait_pipe', '[kernel]', 'pipe_read']),
    blocked(20, 3000, ['[user]', 'main', 'wait_pipe', '[kernel]', 'pipe_read']),
    blocked(30, 500, ['[user]', 'main', 'sleep', '[kernel]', 'hrtimer_nanosleep']),
  ], { columns: { latency_ns: 'UBIGINT', stack_weight: 'UINTEGER' } }));
  try {
    const got = await getJson(w, `/api/event_flamegraph?${qs({ start_ns: 0, end_ns: 100, event_type: 'off_cpu', max_stacks: 100 })}`);
    assert.equal(got.total_samples, 4500);
    assert.match(got.svg, /wait_pipe \(4000 ns off-CPU, 88.89%\)/);
  } finally {
    assert.equal(await stopViewer(w), 0);
  }
});

test('a trace with more than 256 event types opens (every syscall, two types each)', async () => {
  const rows = [];
  for (let i = 0; i < 150; i++) {
    const name = `call${String(i).padStart(3, '0')}`;
    for (let k = 0; k <= i % 3; k++) {
      const t = 1000 * i + 10 * k;
      rows.push(R(`syscall_${name}_enter`, t), R(`syscall_${name}_exit`, t + 5, { ret: 0 }));
    }
  }
  const w = await startViewer(write(tmpdir(), 'many', rows));
  try {
    const sum = await getJson(w, '/api/summary');
    assert.equal(sum.event_types.length, 300);
    const counts = (await getJson(w, `/api/event_type_counts?${qs({ start_ns: 0, end_ns: 1e9 })}`)).counts;
    assert.equal(counts.syscall_call149_exit, 3);
    assert.equal(counts.syscall_call000_enter, 1);
    const io = await getJson(w, `/api/io_statistics?${qs({ start_ns: 0, end_ns: 1e9 })}`);
    // None of them does I/O.
    assert.equal(io.by_operation.length, 0);
    const list = await getJson(w, `/api/event_list?${qs({ start_ns: 0, end_ns: 1e9, pid: 10, limit: 5, offset: 0, event_types: 'syscall_call140_enter' })}`);
    assert.equal(list.total_in_range, 3);
  } finally {
    assert.equal(await stopViewer(w), 0);
  }
});
