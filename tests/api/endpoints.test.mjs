// Every endpoint on trace A (traces.mjs), compared with values worked out by hand.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getJson, qs, startViewer, stopViewer, tmpdir, refEvents, refLifetimes } from './lib.mjs';
import { S, traceA, write } from './traces.mjs';

let v;
before(async () => { v = await startViewer(write(tmpdir(), 'a', traceA)); });
after(async () => { assert.equal(await stopViewer(v), 0); });

const ALL = { start_ns: 100, end_ns: 600 };

test('summary', async () => {
  assert.deepEqual(await getJson(v, '/api/summary'), {
    total_events: 27,
    event_types: ['cpu_sample', 'io_uring_complete', 'process_exit', 'process_fork', 'sched_switch',
      'syscall_brk_enter', 'syscall_brk_exit', 'syscall_fsync_enter', 'syscall_fsync_exit',
      'syscall_mmap_enter', 'syscall_mmap_exit', 'syscall_munmap_enter', 'syscall_munmap_exit',
      'syscall_read_enter', 'syscall_read_exit', 'syscall_write_enter', 'syscall_write_exit'],
    unique_pids: [10, 11, 20], unique_tgids: [10, 20], min_ts_ns: 100, max_ts_ns: 600, cpu_sample_frequency_hz: 1000,
  });
});

test('histogram: 100-ns buckets, the row on end_ns clamped into the last', async () => {
  const h = await getJson(v, `/api/histogram?${qs({ ...ALL, num_buckets: 5 })}`);
  assert.deepEqual(h, {
    buckets: [
      { bucket_start_ns: 100, bucket_end_ns: 200, count: 8, counts_by_type: { cpu_sample: 3, process_fork: 1, syscall_read_enter: 2, syscall_read_exit: 1, syscall_write_exit: 1 } },
      { bucket_start_ns: 200, bucket_end_ns: 300, count: 12, counts_by_type: { syscall_brk_enter: 3, syscall_brk_exit: 3, syscall_mmap_enter: 1, syscall_mmap_exit: 1, syscall_munmap_enter: 1, syscall_munmap_exit: 1, syscall_read_exit: 1, syscall_write_enter: 1 } },
      { bucket_start_ns: 300, bucket_end_ns: 400, count: 2, counts_by_type: { process_exit: 1, syscall_fsync_enter: 1 } },
      { bucket_start_ns: 400, bucket_end_ns: 500, count: 1, counts_by_type: { syscall_fsync_exit: 1 } },
      { bucket_start_ns: 500, bucket_end_ns: 600, count: 4, counts_by_type: { io_uring_complete: 3, sched_switch: 1 } },
    ],
    total_in_range: 27,
  });
});

test('histogram: more buckets than nanoseconds', async () => {
  // range 5 over 10 buckets: div_ceil gives 1 ns buckets; those past end_ns end at end_ns.
  const h = await getJson(v, `/api/histogram?${qs({ start_ns: 100, end_ns: 105, num_buckets: 10 })}`);
  assert.deepEqual(h.buckets.map((b) => [b.bucket_start_ns, b.bucket_end_ns, b.count]), [
    [100, 101, 1], [101, 102, 0], [102, 103, 0], [103, 104, 0], [104, 105, 0],
    [105, 105, 1], [106, 105, 0], [107, 105, 0], [108, 105, 0], [109, 105, 0],
  ]);
  assert.deepEqual(h.buckets[0].counts_by_type, { process_fork: 1 });
  assert.deepEqual(h.buckets[5].counts_by_type, { syscall_write_exit: 1 });
  assert.equal(h.total_in_range, 2);
});

const ALL_COUNTS = {
  cpu_sample: 3, io_uring_complete: 3, process_exit: 1, process_fork: 1, sched_switch: 1,
  syscall_brk_enter: 3, syscall_brk_exit: 3, syscall_fsync_enter: 1, syscall_fsync_exit: 1,
  syscall_mmap_enter: 1, syscall_mmap_exit: 1, syscall_munmap_enter: 1, syscall_munmap_exit: 1,
  syscall_read_enter: 2, syscall_read_exit: 2, syscall_write_enter: 1, syscall_write_exit: 1,
};

test('event_type_counts: whole trace, a window, open-ended bounds', async () => {
  assert.deepEqual(await getJson(v, '/api/event_type_counts'), { counts: ALL_COUNTS });
  assert.deepEqual(await getJson(v, `/api/event_type_counts?${qs({ start_ns: 150, end_ns: 250 })}`), {
    counts: { syscall_brk_enter: 3, syscall_brk_exit: 2, syscall_read_enter: 1, syscall_read_exit: 2, syscall_write_enter: 1 },
  });
  assert.deepEqual(await getJson(v, '/api/event_type_counts?start_ns=500'), { counts: { io_uring_complete: 3, sched_switch: 1 } });
  assert.deepEqual(await getJson(v, '/api/event_type_counts?end_ns=105'), { counts: { process_fork: 1, syscall_write_exit: 1 } });
});

test('pid_event_type_counts', async () => {
  assert.deepEqual(await getJson(v, '/api/pid_event_type_counts?pid=20'), { counts: { cpu_sample: 3, process_exit: 1 } });
  assert.deepEqual(await getJson(v, '/api/pid_event_type_counts?pid=20&end_ns=130'), { counts: { cpu_sample: 2 } });
  assert.deepEqual(await getJson(v, '/api/pid_event_type_counts?pid=99'), { counts: {} });
});

test('process_lifetimes: fork start, exit end and code, first non-empty name', async () => {
  assert.deepEqual(refLifetimes(await getJson(v, '/api/process_lifetimes')), {
    processes: [
      { pid: 10, process_name: 'main', parent_pid: null, start_ns: 100, end_ns: 600, exit: null, was_forked: false },
      { pid: 20, process_name: 'child', parent_pid: 10, start_ns: 100, end_ns: 300, exit: 3, was_forked: true },
      { pid: 11, process_name: 'worker', parent_pid: null, start_ns: 105, end_ns: 506, exit: null, was_forked: false },
    ],
  });
});

test('process_events: every event under the cap, one density bucket', async () => {
  const e = await getJson(v, `/api/process_events?${qs({ ...ALL, max_events_per_pid: 500 })}`);
  const m = (ts, t) => ({ ts_ns: ts, event_type: t });
  assert.deepEqual(e, {
    events_by_pid: {
      10: [m(100, 'process_fork'), m(110, 'syscall_read_enter'), m(150, 'syscall_read_exit'),
        m(160, 'syscall_read_enter'), m(200, 'syscall_read_exit'), m(220, 'syscall_brk_enter'),
        m(225, 'syscall_brk_exit'), m(230, 'syscall_brk_enter'), m(240, 'syscall_brk_exit'),
        m(250, 'syscall_brk_enter'), m(252, 'syscall_brk_exit'), m(260, 'syscall_mmap_enter'),
        m(270, 'syscall_mmap_exit'), m(280, 'syscall_munmap_enter'), m(281, 'syscall_munmap_exit'),
        m(600, 'sched_switch')],
      11: [m(105, 'syscall_write_exit'), m(210, 'syscall_write_enter'), m(310, 'syscall_fsync_enter'),
        m(400, 'syscall_fsync_exit'), m(500, 'io_uring_complete'), m(505, 'io_uring_complete'),
        m(506, 'io_uring_complete')],
      20: [m(120, 'cpu_sample'), m(130, 'cpu_sample'), m(140, 'cpu_sample'), m(300, 'process_exit')],
    },
    total_events_by_pid: { 10: 16, 11: 7, 20: 4 },
    // 1000 Hz over 500 ns expects 0.0005 samples: the floor gives 0, at least 1 bucket.
    cpu_sample_counts_by_pid: { 20: [3] },
    cpu_sample_bucket_count: 1,
  });
});

test('process_events: sampled markers are a sorted, repeatable subset', async () => {
  const url = `/api/process_events?${qs({ ...ALL, max_events_per_pid: 2 })}`;
  const a = await getJson(v, url), b = await getJson(v, url);
  assert.deepEqual(a, b);
  const full = await getJson(v, `/api/process_events?${qs({ ...ALL, max_events_per_pid: 500 })}`);
  // The totals are the unsampled counts, so a client knows these lanes are sampled.
  assert.deepEqual(a.total_events_by_pid, { 10: 16, 11: 7, 20: 4 });
  for (const pid of ['10', '11', '20']) {
    assert.equal(a.events_by_pid[pid].length, 2);
    const ts = a.events_by_pid[pid].map((x) => x.ts_ns);
    assert.deepEqual(ts, [...ts].sort((x, y) => x - y));
    for (const ev of a.events_by_pid[pid]) assert.ok(full.events_by_pid[pid].some((f) => f.ts_ns === ev.ts_ns && f.event_type === ev.event_type));
  }
});

test('syscall_latency_stats: FIFO pairs, unpaired exit and enter ignored', async () => {
  const zero = { count: 0, avg_ns: 0, p50_ns: 0, p95_ns: 0, max_ns: 0 };
  assert.deepEqual(await getJson(v, `/api/syscall_latency_stats?${qs(ALL)}`), {
    read: { count: 2, avg_ns: 40, p50_ns: 40, p95_ns: 40, max_ns: 40 },
    write: zero,
    io_uring: { count: 1, avg_ns: 50, p50_ns: 50, p95_ns: 50, max_ns: 50 },
    mmap_alloc_bytes: 4096,
    munmap_free_bytes: 4096,
  });
  // [120, 190]: the exit at 150 lost its enter (110) to the window; the enter at 160 its exit.
  assert.deepEqual(await getJson(v, `/api/syscall_latency_stats?${qs({ start_ns: 120, end_ns: 190 })}`), {
    read: zero, write: zero, io_uring: zero, mmap_alloc_bytes: 0, munmap_free_bytes: 0,
  });
  assert.deepEqual(await getJson(v, `/api/syscall_latency_stats?${qs({ start_ns: 0, end_ns: 1000, pid: 11 })}`), {
    read: zero, write: zero, io_uring: { count: 1, avg_ns: 50, p50_ns: 50, p95_ns: 50, max_ns: 50 },
    mmap_alloc_bytes: 0, munmap_free_bytes: 0,
  });
});

const ev = (ts, lat, type, pid, stack) => ({ ts_ns: ts, latency_ns: lat, event_type: type, pid, stack_trace: stack });

// Power-of-two bins [lo, hi) from the first to the last non-empty one.
function hist(values) {
  const bin = (x) => (x === 0 ? 0 : Math.floor(Math.log2(x)) + 1);
  const lo = (b) => (b === 0 ? 0 : 2 ** (b - 1));
  const bins = values.map(bin), out = [];
  for (let b = Math.min(...bins); b <= Math.max(...bins); b++)
    out.push({ lo: lo(b), hi: 2 ** b, count: bins.filter((x) => x === b).length });
  return out;
}

function opStats(op, pick, lats, sizes, bytes, avg) {
  const cdf = (xs) => xs.map((x, i) => [x, (i + 1) / xs.length]);
  return {
    operation: op, total_ops: lats.length, total_bytes: bytes, avg_latency_ns: avg,
    p50_event: pick[0], p95_event: pick[1], p99_event: pick[2], max_event: pick[3],
    latencies_ns: lats, sizes_bytes: sizes,
    latency_cdf: cdf(lats), size_cdf: cdf(sizes), latency_histogram: hist(lats), size_histogram: hist(sizes),
  };
}

test('io_statistics: per operation, percentile events at n*p/100, sorted by count', async () => {
  const read200 = ev(200, 40, 'read', 10, S.read), fsync = ev(400, 90, 'fsync', 11, S.fsync);
  const uring = ev(500, 50, 'io_uring', 11, S.uring);
  assert.deepEqual(await getJson(v, `/api/io_statistics?${qs(ALL)}`), {
    by_operation: [
      // (40, pid 10, ts 150) and (40, pid 10, ts 200): index 2*50/100 = 1 is the second.
      opStats('read', [read200, read200, read200, read200], [40, 40], [0, 60], 60, 40),
      opStats('fsync', [fsync, fsync, fsync, fsync], [90], [0], 0, 90),
      opStats('io_uring', [uring, uring, uring, uring], [50], [4096], 4096, 50),
    ],
    total_ops: 4, total_bytes: 4156, time_range_ns: [100, 600],
  });
});

test('memory_statistics: brk deltas from the second break, cumulative usage', async () => {
  const brk = ev(240, 10, 'brk', 10, S.brk), mmap = ev(270, 10, 'mmap', 10, S.mmap);
  const munmap = ev(281, 1, 'munmap', 10, S.mmap);
  assert.deepEqual(await getJson(v, `/api/memory_statistics?${qs(ALL)}`), {
    by_operation: [
      opStats('brk', [brk, brk, brk, brk], [2, 10], [300, 500], 800, 6),
      opStats('mmap', [mmap, mmap, mmap, mmap], [10], [4096], 4096, 10),
      opStats('munmap', [munmap, munmap, munmap, munmap], [1], [4096], 4096, 1),
    ],
    total_alloc_ops: 2, total_alloc_bytes: 4596, total_free_ops: 2, total_free_bytes: 4396,
    cumulative_usage: [
      { ts_ns: 240, cumulative_bytes: 500 }, { ts_ns: 252, cumulative_bytes: 200 },
      { ts_ns: 270, cumulative_bytes: 4296 }, { ts_ns: 281, cumulative_bytes: 200 },
    ],
    time_range_ns: [100, 600],
  });
  // From 226 the break at 240 is the first one seen: only the shrink at 252 counts.
  const m = await getJson(v, `/api/memory_statistics?${qs({ start_ns: 226, end_ns: 600 })}`);
  assert.deepEqual(m.by_operation.map((o) => [o.operation, o.total_ops, o.total_bytes]),
    [['brk', 1, 300], ['mmap', 1, 4096], ['munmap', 1, 4096]]);
  assert.deepEqual([m.total_alloc_ops, m.total_alloc_bytes, m.total_free_ops, m.total_free_bytes], [1, 4096, 2, 4396]);
  assert.deepEqual(m.cumulative_usage, [
    { ts_ns: 252, cumulative_bytes: -300 }, { ts_ns: 270, cumulative_bytes: 3796 }, { ts_ns: 281, cumulative_bytes: -300 },
  ]);
});

test('event_flamegraph: stacks of one type and pid, folded root first', async () => {
  const f = await getJson(v, `/api/event_flamegraph?${qs({ ...ALL, pid: 20, event_type: 'cpu_sample', max_stacks: 5000 })}`);
  assert.equal(f.event_type, 'cpu_sample');
  assert.equal(f.total_samples, 3);
  assert.match(f.svg, /^<\?xml[^]*<svg [^>]*height="\d+"/);
  assert.ok(f.svg.includes('<title>all (3 samples, 100.00%)</title>'));
  assert.ok(f.svg.includes('<title>child_main (3 samples, 100.00%)</title>'));
  assert.ok(f.svg.includes('<title>work (2 samples, 66.67%)</title>'));
  assert.ok(f.svg.includes('<title>other (1 samples, 33.33%)</title>'));
  assert.ok(f.svg.includes('probex \u00b7 cpu_sample'));
  // The folded data the SVG is drawn from: root first, one entry per distinct stack.
  const byKey = (x) => x.frames.join(';');
  assert.deepEqual([...f.stacks].sort((a, b) => byKey(a).localeCompare(byKey(b))),
    [{ frames: S.cpu2, weight: 1 }, { frames: S.cpu1, weight: 2 }]);
  assert.equal(f.total_in_range, 3);
  const one = await getJson(v, `/api/event_flamegraph?${qs({ ...ALL, pid: 20, event_type: 'cpu_sample', max_stacks: 1 })}`);
  assert.equal(one.total_samples, 1);
  assert.equal(one.total_in_range, 3);
  assert.equal(one.stacks.length, 1);
  assert.equal(one.stacks[0].weight, 1);
  // A type the trace lacks, and rows without stacks: empty, not an error.
  assert.deepEqual(await getJson(v, `/api/event_flamegraph?${qs({ ...ALL, event_type: 'page_fault', max_stacks: 10 })}`),
    { event_type: 'page_fault', total_samples: 0, total_in_range: 0, svg: null, stacks: [], weight_unit: 'events' });
  // (total_in_range counts rows that have a stack: this exit row has none.)
  assert.deepEqual(await getJson(v, `/api/event_flamegraph?${qs({ ...ALL, pid: 20, event_type: 'process_exit', max_stacks: 10 })}`),
    { event_type: 'process_exit', total_samples: 0, total_in_range: 0, svg: null, stacks: [], weight_unit: 'events' });
});

test('event_list: ordered by time, limit/offset, type filter', async () => {
  const row = (ts, t, stack) => ({ ts_ns: ts, latency_ns: null, event_type: t, pid: 10, stack_trace: stack });
  const base = { ...ALL, pid: 10 };
  assert.deepEqual(refEvents(await getJson(v, `/api/event_list?${qs({ ...base, limit: 3, offset: 0 })}`)), {
    events: [row(100, 'process_fork', S.fork), row(110, 'syscall_read_enter', S.read), row(150, 'syscall_read_exit', S.read)],
    total_in_range: 16,
  });
  assert.deepEqual(refEvents(await getJson(v, `/api/event_list?${qs({ ...base, limit: 3, offset: 15 })}`)),
    { events: [row(600, 'sched_switch', null)], total_in_range: 16 });
  assert.deepEqual(refEvents(await getJson(v, `/api/event_list?${qs({ ...base, limit: 3, offset: 16 })}`)), { events: [], total_in_range: 16 });
  assert.deepEqual(refEvents(await getJson(v, `/api/event_list?${qs({ ...base, limit: 3, offset: 1000000 })}`)), { events: [], total_in_range: 16 });
  assert.deepEqual(refEvents(await getJson(v, `/api/event_list?${qs({ ...base, limit: 10, offset: 0, event_types: 'syscall_brk_exit,syscall_mmap_exit' })}`)), {
    events: [row(225, 'syscall_brk_exit', S.brk), row(240, 'syscall_brk_exit', S.brk), row(252, 'syscall_brk_exit', S.brk), row(270, 'syscall_mmap_exit', S.mmap)],
    total_in_range: 4,
  });
  // Unknown names match nothing; known ones next to them still count.
  assert.deepEqual(await getJson(v, `/api/event_list?${qs({ ...base, limit: 10, offset: 0, event_types: "syscall_brk_exit,no'such" })}`).then((r) => r.total_in_range), 3);
  assert.deepEqual(refEvents(await getJson(v, `/api/event_list?${qs({ ...base, limit: 10, offset: 0, event_types: "x')%20OR%20('1'%3D'1" })}`)), { events: [], total_in_range: 0 });
});

test('event_list: additive payload fields, read from the file for the page', async () => {
  const l = await getJson(v, `/api/event_list?${qs({ ...ALL, pid: 10, limit: 3, offset: 0 })}`);
  const payload = (e) => { const { ts_ns, latency_ns, event_type, pid, stack_trace, ...p } = e; return p; };
  assert.deepEqual(l.events.map(payload), [
    { tgid: 10, process_name: 'main', cpu: 0, parent_pid: 10, child_pid: 20 },
    { tgid: 10, process_name: 'main', cpu: 0, fd: 3, count: 100 },
    { tgid: 10, process_name: 'main', cpu: 0, ret: 60 },
  ]);
  const u = await getJson(v, `/api/event_list?${qs({ ...ALL, pid: 11, limit: 2, offset: 1, event_types: 'io_uring_complete,sched_switch' })}`);
  assert.equal(u.total_in_range, 3);
  assert.deepEqual(u.events.map(payload), [
    { tgid: 10, process_name: 'worker', cpu: 0, submit_ts_ns: 0, io_uring_opcode: 22, io_uring_res: 1 },
    { tgid: 10, process_name: 'worker', cpu: 0, io_uring_opcode: 22, io_uring_res: 2 },
  ]);
  const s = await getJson(v, `/api/event_list?${qs({ ...ALL, pid: 10, limit: 1, offset: 15 })}`);
  assert.deepEqual(payload(s.events[0]), { tgid: 10, process_name: 'main', cpu: 0, prev_pid: 10, next_pid: 11, prev_state: 1 });
});

test('process_lifetimes: additive last name and tgid', async () => {
  const p = (await getJson(v, '/api/process_lifetimes')).processes;
  assert.deepEqual(p.map((x) => [x.pid, x.last_process_name, x.tgid]), [[10, 'main', 10], [20, 'child', 20], [11, 'worker', 10]]);
});
