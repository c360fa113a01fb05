// Thread states, the critical path and the wall-clock flame graph on a hand-built relay:
// main (10) reads a pipe from 210 to 450, woken by worker (11); the worker runs, waits in
// uninterruptible sleep from 300 to 400 (woken by holder 12), runs again and writes the
// pipe; the holder runs 300-400 and is preempted.  Expected values are worked out by hand.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { get, getJson, qs, startViewer, stopViewer, tmpdir, writeTrace } from './lib.mjs';

const READ = ['[user]', 'main', 'do_read', '[kernel]', 'ksys_read', '__schedule'];
const SYNC = ['[user]', 'worker', 'sync', '[kernel]', 'io_schedule'];
const WAKE = ['[user]', 'worker', 'send', '[kernel]', 'try_to_wake_up'];
const CPU = ['[user]', 'main', 'work'];
const base = { tgid: 10 };
const rows = [
  { ...base, event_type: 'sched_switch', ts_ns: 100, pid: 10, process_name: 'main', prev_pid: 1, next_pid: 10, prev_state: 1, next_tgid: 10 },
  { ...base, event_type: 'cpu_sample', ts_ns: 150, pid: 10, process_name: 'main', stack_trace: CPU },
  { ...base, event_type: 'syscall_read_enter', ts_ns: 200, pid: 10, process_name: 'main', fd: 3, count: 1 },
  { ...base, event_type: 'sched_switch', ts_ns: 210, pid: 10, process_name: 'main', prev_pid: 10, next_pid: 11, prev_state: 1 },
  { ...base, event_type: 'off_cpu', ts_ns: 210, pid: 10, process_name: 'main', latency_ns: 240, prev_state: 1, waker_pid: 11, waker_tgid: 10, stack_trace: READ, waker_stack_trace: WAKE },
  { ...base, event_type: 'syscall_fsync_enter', ts_ns: 290, pid: 11, process_name: 'worker', fd: 4 },
  { ...base, event_type: 'sched_switch', ts_ns: 300, pid: 11, process_name: 'worker', prev_pid: 11, next_pid: 12, prev_state: 2 },
  { ...base, event_type: 'off_cpu', ts_ns: 300, pid: 11, process_name: 'worker', latency_ns: 100, prev_state: 2, waker_pid: 12, waker_tgid: 10, stack_trace: SYNC },
  { ...base, event_type: 'sched_switch', ts_ns: 400, pid: 12, process_name: 'holder', prev_pid: 12, next_pid: 11, prev_state: 256 },
  { ...base, event_type: 'syscall_fsync_exit', ts_ns: 401, pid: 11, process_name: 'worker', ret: 0 },
  { ...base, event_type: 'sched_switch', ts_ns: 450, pid: 11, process_name: 'worker', prev_pid: 11, next_pid: 10, prev_state: 1 },
  { ...base, event_type: 'cpu_sample', ts_ns: 500, pid: 12, process_name: 'holder', stack_trace: CPU },
  { ...base, event_type: 'syscall_read_exit', ts_ns: 600, pid: 10, process_name: 'main', ret: 1 },
];
const probexCols = {
  latency_ns: 'UBIGINT', waker_pid: 'UINTEGER', waker_tgid: 'UINTEGER', waker_stack_trace: 'VARCHAR[]',
  next_tgid: 'UINTEGER',
};
let v, vr, vnone;

before(async () => {
  const dir = tmpdir();
  const meta = { 'probex.sample_freq_hz': '1000', 'probex.stack_trace_format': 'symbolized_v1', 'probex.root_pid': '10' };
  const a = writeTrace(path.join(dir, 'relay.parquet'), rows, { columns: probexCols, meta });
  // The same with runnable_ns: main was woken 40 ns before it ran.
  const withRunnable = rows.map((r) => (r.event_type === 'off_cpu' && r.pid === 10 ? { ...r, runnable_ns: 40 } : r));
  const b = writeTrace(path.join(dir, 'runnable.parquet'), withRunnable,
    { columns: { ...probexCols, runnable_ns: 'UBIGINT' }, meta });
  // A reference-format trace: no scheduling rows at all.
  const c = writeTrace(path.join(dir, 'none.parquet'), rows.filter((r) => !['sched_switch', 'off_cpu'].includes(r.event_type)));
  [v, vr, vnone] = await Promise.all([startViewer(a), startViewer(b), startViewer(c)]);
});
after(async () => {
  for (const x of [v, vr, vnone]) assert.equal(await stopViewer(x), 0);
});

const brief = (s) => [s.start_ns, s.end_ns, s.state];

test('thread_states: spans tile the life, a block carries syscall, waker and stack', async () => {
  const r = await getJson(v, `/api/thread_states?${qs({ tid: 10, start_ns: 0, end_ns: 1000 })}`);
  assert.equal(r.tid, 10);
  assert.deepEqual(r.spans.map(brief), [[100, 210, 'running'], [210, 450, 'sleeping'], [450, 600, 'running']]);
  const s = r.spans[1];
  assert.equal(s.syscall.name, 'read');
  assert.equal(s.syscall.fd, 3);
  assert.equal(s.waker_tid, 11);
  assert.equal(s.waker_pid, 10);
  assert.equal(s.waker_name, 'worker');
  assert.deepEqual(s.stack, READ);
  assert.deepEqual(s.waker_stack, WAKE);
  assert.equal(r.spans[0].syscall, null);
  assert.match(r.note, /runnable_ns/);
  const w = await getJson(v, `/api/thread_states?${qs({ tid: 11, start_ns: 0, end_ns: 1000 })}`);
  assert.deepEqual(w.spans.map(brief), [[210, 300, 'running'], [300, 400, 'disk'], [400, 450, 'running']]);
  assert.equal(w.spans[1].syscall.name, 'fsync');
  assert.equal(w.spans[1].waker_tid, 12);
  const h = await getJson(v, `/api/thread_states?${qs({ tid: 12, start_ns: 0, end_ns: 1000 })}`);
  assert.deepEqual(h.spans.map(brief), [[300, 400, 'running'], [400, 500, 'runnable']]);
});

test('thread_states: clipped to the window; narrow spans merge under max_spans', async () => {
  const r = await getJson(v, `/api/thread_states?${qs({ tid: 10, start_ns: 300, end_ns: 500 })}`);
  assert.deepEqual(r.spans.map(brief), [[300, 450, 'sleeping'], [450, 500, 'running']]);
  const m = await getJson(v, `/api/thread_states?${qs({ tid: 10, start_ns: 0, end_ns: 1000, max_spans: 2 })}`);
  assert.ok(m.spans.length <= 3, JSON.stringify(m.spans));
  for (let i = 1; i < m.spans.length; i++) assert.equal(m.spans[i].start_ns, m.spans[i - 1].end_ns);
  assert.equal(m.spans[0].start_ns, 100);
  assert.equal(m.spans.at(-1).end_ns, 600);
  const e = await getJson(v, `/api/thread_states?${qs({ tid: 10, start_ns: 700, end_ns: 800 })}`);
  assert.deepEqual(e.spans, []);
  assert.match(e.note, /did not live in the window/);
});

test('thread_states: runnable_ns splits a block at its wakeup', async () => {
  const r = await getJson(vr, `/api/thread_states?${qs({ tid: 10, start_ns: 0, end_ns: 1000 })}`);
  assert.deepEqual(r.spans.map(brief), [[100, 210, 'running'], [210, 410, 'sleeping'], [410, 450, 'runnable'], [450, 600, 'running']]);
  assert.equal(r.spans[2].waker_tid, 11);
  assert.equal(r.note, null);
});

test('critical_path: main waits on the worker, the worker on the holder', async () => {
  const r = await getJson(v, `/api/critical_path?${qs({ tid: 10 })}`);
  assert.equal(r.tid, 10);
  assert.equal(r.start_ns, 100);
  assert.equal(r.end_ns, 600);
  assert.deepEqual(r.segments.map((s) => [s.tid, s.start_ns, s.end_ns, s.state]),
    [[10, 100, 210, 'running'], [11, 210, 300, 'running'], [12, 300, 400, 'running'], [11, 400, 450, 'running'], [10, 450, 600, 'running']]);
  assert.deepEqual(r.segments[0].stack, CPU);
  assert.equal(r.segments[2].thread_name, 'holder');
  assert.equal(r.segments[2].pid, 10);
  // The default thread is the root pid's, over its life.
  assert.deepEqual(await getJson(v, '/api/critical_path'), r);
  const w = await getJson(v, `/api/critical_path?${qs({ tid: 10, start_ns: 250, end_ns: 350 })}`);
  assert.deepEqual(w.segments.map((s) => [s.tid, s.start_ns, s.end_ns]), [[11, 250, 300], [12, 300, 350]]);
});

test('wall_flamegraph: samples at their period and blocked time by state, in ns', async () => {
  const r = await getJson(v, `/api/wall_flamegraph?${qs({ tid: 10, start_ns: 0, end_ns: 1000 })}`);
  assert.equal(r.weight_unit, 'ns');
  assert.equal(r.on_cpu_ns, 1000000);
  assert.equal(r.off_cpu_ns, 240);
  const byLeaf = Object.fromEntries(r.stacks.map((s) => [s.frames.at(-1), s]));
  assert.deepEqual(byLeaf['[sleeping]'].frames, [...READ, '[sleeping]']);
  assert.equal(byLeaf['[sleeping]'].weight, 240);
  assert.equal(byLeaf.work.weight, 1000000);
  const p = await getJson(v, `/api/wall_flamegraph?${qs({ tgid: 10, start_ns: 0, end_ns: 1000 })}`);
  assert.equal(p.off_cpu_ns, 340);
  assert.ok(p.stacks.some((s) => s.frames.at(-1) === '[disk]' && s.weight === 100));
});

test('event_flamegraph says what its weights count', async () => {
  const o = await getJson(v, `/api/event_flamegraph?${qs({ start_ns: 0, end_ns: 1000, event_type: 'off_cpu', max_stacks: 10 })}`);
  assert.equal(o.weight_unit, 'ns');
  assert.equal(o.total_samples, 340);
  const c = await getJson(v, `/api/event_flamegraph?${qs({ start_ns: 0, end_ns: 1000, event_type: 'cpu_sample', max_stacks: 10 })}`);
  assert.equal(c.weight_unit, 'samples');
  const s = await getJson(v, `/api/event_flamegraph?${qs({ start_ns: 0, end_ns: 1000, event_type: 'syscall_read_enter', max_stacks: 10 })}`);
  assert.equal(s.weight_unit, 'events');
});

test('bad input: 400s naming the parameter, notes for what a trace lacks', async () => {
  for (const [p, param] of [
    [`/api/thread_states?${qs({ tid: 99, start_ns: 0, end_ns: 10 })}`, 'tid'],
    [`/api/thread_states?${qs({ start_ns: 0, end_ns: 10 })}`, 'tid'],
    [`/api/thread_states?${qs({ tid: 10, start_ns: 5, end_ns: 1 })}`, 'end_ns'],
    [`/api/thread_states?${qs({ tid: 10, start_ns: 0, end_ns: 10, max_spans: 0 })}`, 'max_spans'],
    [`/api/critical_path?${qs({ tid: 99 })}`, 'tid'],
    [`/api/critical_path?${qs({ tid: 10, start_ns: 9, end_ns: 1 })}`, 'end_ns'],
    [`/api/wall_flamegraph?${qs({ start_ns: 0, end_ns: 10 })}`, 'tid'],
    [`/api/wall_flamegraph?${qs({ tid: 99, start_ns: 0, end_ns: 10 })}`, 'tid'],
    [`/api/wall_flamegraph?${qs({ tgid: 99, start_ns: 0, end_ns: 10 })}`, 'tgid'],
  ]) {
    const r = await get(v, p);
    assert.equal(r.status, 400, `${p}: ${r.text}`);
    assert.equal(r.json.parameter, param, `${p}: ${r.text}`);
  }
  // No sched_switch rows: the states are unknown, and said so; no made-up zeros.
  const r = await getJson(vnone, `/api/thread_states?${qs({ tid: 10, start_ns: 0, end_ns: 1000 })}`);
  assert.deepEqual(r.spans.map(brief), [[150, 600, 'unknown']]);
  assert.match(r.note, /no sched_switch rows/);
  const c = await getJson(vnone, '/api/critical_path?tid=10');
  assert.deepEqual(c.segments.map((s) => s.state), ['unknown']);
});
