// Edge cases: an empty trace, a one-event trace, zero-width and out-of-trace windows,
// CPU-sample density buckets (cap, clamping, u16 saturation).
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { getJson, qs, runSql, sqlString, startViewer, stopViewer, tmpdir, refEvents, refLifetimes } from './lib.mjs';
import { write } from './traces.mjs';

const zero = { count: 0, avg_ns: 0, p50_ns: 0, p95_ns: 0, max_ns: 0 };
let empty, one, dense;

before(async () => {
  const dir = tmpdir();
  const denseRows = [];
  // pid 5: one sample per ms from 1 ms to 10 ms; pid 6: one at 5.5 ms.
  for (let k = 1; k <= 10; k++) denseRows.push({ event_type: 'cpu_sample', ts_ns: k * 1000000, pid: 5, tgid: 5 });
  denseRows.push({ event_type: 'cpu_sample', ts_ns: 5500000, pid: 6, tgid: 6 });
  // pid 7: 70 000 samples at one instant, to saturate a u16 bucket (written with range()).
  const sat = path.join(dir, 'sat.parquet');
  const satSql = `COPY (SELECT 'cpu_sample' AS event_type, 20000000::UBIGINT AS ts_ns, 7::UINTEGER AS pid, ` +
    `7::UINTEGER AS tgid, NULL::VARCHAR AS process_name, NULL::INTEGER AS stack_id, NULL::INTEGER AS kernel_stack_id, ` +
    `NULL::VARCHAR AS stack_kind, NULL::VARCHAR[] AS stack_trace, 0::UTINYINT AS cpu, NULL::UINTEGER AS prev_pid, ` +
    `NULL::UINTEGER AS next_pid, NULL::BIGINT AS prev_state, NULL::UINTEGER AS parent_pid, NULL::UINTEGER AS child_pid, ` +
    `NULL::INTEGER AS exit_code, NULL::UBIGINT AS address, NULL::UBIGINT AS error_code, NULL::BIGINT AS fd, ` +
    `NULL::UBIGINT AS count, NULL::BIGINT AS ret, NULL::UBIGINT AS submit_ts_ns, NULL::UTINYINT AS io_uring_opcode, ` +
    `NULL::INTEGER AS io_uring_res FROM range(70000) ` +
    `UNION ALL SELECT * FROM read_parquet(${sqlString(write(dir, 'dense0', denseRows))})) TO ${sqlString(sat)} ` +
    `(FORMAT parquet, KV_METADATA {"probex.sample_freq_hz": '1000', "probex.stack_trace_format": 'symbolized_v1'})`;
  runSql(satSql);
  [empty, one, dense] = await Promise.all([
    startViewer(write(dir, 'empty', [])),
    startViewer(write(dir, 'one', [{ event_type: 'cpu_sample', ts_ns: 5, pid: 1, tgid: 1, process_name: 'solo', stack_trace: ['[user]', 'a'] }])),
    startViewer(sat),
  ]);
});
after(async () => {
  for (const v of [empty, one, dense]) assert.equal(await stopViewer(v), 0);
});

test('empty trace: every endpoint answers, empty', async () => {
  const w = { start_ns: 0, end_ns: 10 };
  assert.deepEqual(await getJson(empty, '/api/summary'), {
    total_events: 0, event_types: [], unique_pids: [], unique_tgids: [], min_ts_ns: 0, max_ts_ns: 0, cpu_sample_frequency_hz: 1000,
  });
  assert.deepEqual(await getJson(empty, `/api/histogram?${qs({ ...w, num_buckets: 2 })}`), {
    buckets: [
      { bucket_start_ns: 0, bucket_end_ns: 5, count: 0, counts_by_type: {} },
      { bucket_start_ns: 5, bucket_end_ns: 10, count: 0, counts_by_type: {} },
    ],
    total_in_range: 0,
  });
  assert.deepEqual(await getJson(empty, '/api/event_type_counts'), { counts: {} });
  assert.deepEqual(await getJson(empty, '/api/pid_event_type_counts?pid=1'), { counts: {} });
  assert.deepEqual(await getJson(empty, '/api/process_lifetimes'), { processes: [] });
  assert.deepEqual(await getJson(empty, `/api/process_events?${qs({ ...w, max_events_per_pid: 5 })}`),
    { events_by_pid: {}, total_events_by_pid: {}, cpu_sample_counts_by_pid: {}, cpu_sample_bucket_count: 1 });
  assert.deepEqual(await getJson(empty, `/api/syscall_latency_stats?${qs(w)}`),
    { read: zero, write: zero, io_uring: zero, mmap_alloc_bytes: 0, munmap_free_bytes: 0 });
  assert.deepEqual(await getJson(empty, `/api/io_statistics?${qs(w)}`),
    { by_operation: [], total_ops: 0, total_bytes: 0, time_range_ns: [0, 10] });
  assert.deepEqual(await getJson(empty, `/api/memory_statistics?${qs(w)}`), {
    by_operation: [], total_alloc_ops: 0, total_alloc_bytes: 0, total_free_ops: 0, total_free_bytes: 0,
    cumulative_usage: [], time_range_ns: [0, 10],
  });
  assert.deepEqual(await getJson(empty, `/api/event_flamegraph?${qs({ ...w, event_type: 'cpu_sample', max_stacks: 10 })}`),
    { event_type: 'cpu_sample', total_samples: 0, total_in_range: 0, svg: null, stacks: [], weight_unit: 'samples',
      period_ns: 1000000 });
  assert.deepEqual(await getJson(empty, `/api/event_list?${qs({ ...w, pid: 1, limit: 5, offset: 0 })}`), { events: [], total_in_range: 0 });
});

test('one event, zero-width window on it', async () => {
  const w = { start_ns: 5, end_ns: 5 };
  assert.deepEqual(await getJson(one, '/api/summary'), {
    total_events: 1, event_types: ['cpu_sample'], unique_pids: [1], unique_tgids: [1], min_ts_ns: 5, max_ts_ns: 5,
    cpu_sample_frequency_hz: 1000,
  });
  // Range 0: bucket size 1; buckets after the first end at end_ns.
  assert.deepEqual(await getJson(one, `/api/histogram?${qs({ ...w, num_buckets: 3 })}`), {
    buckets: [
      { bucket_start_ns: 5, bucket_end_ns: 5, count: 1, counts_by_type: { cpu_sample: 1 } },
      { bucket_start_ns: 6, bucket_end_ns: 5, count: 0, counts_by_type: {} },
      { bucket_start_ns: 7, bucket_end_ns: 5, count: 0, counts_by_type: {} },
    ],
    total_in_range: 1,
  });
  assert.deepEqual(refLifetimes(await getJson(one, '/api/process_lifetimes')), {
    processes: [{ pid: 1, process_name: 'solo', parent_pid: null, start_ns: 5, end_ns: 5, exit: null, was_forked: false }],
  });
  assert.deepEqual(await getJson(one, `/api/process_events?${qs({ ...w, max_events_per_pid: 10 })}`), {
    events_by_pid: { 1: [{ ts_ns: 5, event_type: 'cpu_sample' }] },
    total_events_by_pid: { 1: 1 },
    cpu_sample_counts_by_pid: { 1: [1] },
    cpu_sample_bucket_count: 1,
  });
  assert.deepEqual(refEvents(await getJson(one, `/api/event_list?${qs({ ...w, pid: 1, limit: 1, offset: 0 })}`)), {
    events: [{ ts_ns: 5, latency_ns: null, event_type: 'cpu_sample', pid: 1, stack_trace: ['[user]', 'a'] }],
    total_in_range: 1,
  });
  const f = await getJson(one, `/api/event_flamegraph?${qs({ ...w, event_type: 'cpu_sample', max_stacks: 5 })}`);
  assert.equal(f.total_samples, 1);
  assert.ok(f.svg.includes('<title>a (1 samples, 100.00%)</title>'));
});

test('windows outside the trace are empty', async () => {
  const w = { start_ns: 1000, end_ns: 2000 };
  const h = await getJson(one, `/api/histogram?${qs({ ...w, num_buckets: 4 })}`);
  assert.equal(h.total_in_range, 0);
  assert.deepEqual(h.buckets.map((b) => [b.bucket_start_ns, b.bucket_end_ns, b.count]),
    [[1000, 1250, 0], [1250, 1500, 0], [1500, 1750, 0], [1750, 2000, 0]]);
  assert.deepEqual(await getJson(one, `/api/event_type_counts?${qs(w)}`), { counts: {} });
  assert.deepEqual(await getJson(one, `/api/process_events?${qs({ ...w, max_events_per_pid: 3 })}`),
    { events_by_pid: {}, total_events_by_pid: {}, cpu_sample_counts_by_pid: {}, cpu_sample_bucket_count: 1 });
  assert.deepEqual(refEvents(await getJson(one, `/api/event_list?${qs({ ...w, pid: 1, limit: 1, offset: 0 })}`)), { events: [], total_in_range: 0 });
  assert.deepEqual(await getJson(one, `/api/event_flamegraph?${qs({ ...w, event_type: 'cpu_sample', max_stacks: 5 })}`),
    { event_type: 'cpu_sample', total_samples: 0, total_in_range: 0, svg: null, stacks: [], weight_unit: 'samples',
      period_ns: 1000000 });
  assert.deepEqual(await getJson(one, `/api/io_statistics?${qs({ start_ns: 0, end_ns: 4 })}`),
    { by_operation: [], total_ops: 0, total_bytes: 0, time_range_ns: [0, 4] });
});

test('CPU density: one bucket per expected sample, rows on end_ns clamped', async () => {
  // 1000 Hz over 9 ms expects 9 samples: 9 buckets of 1 ms from 1 ms; the 10 ms sample is
  // on end_ns and joins the last bucket.
  const e = await getJson(dense, `/api/process_events?${qs({ start_ns: 1000000, end_ns: 10000000, max_events_per_pid: 1 })}`);
  assert.equal(e.cpu_sample_bucket_count, 9);
  assert.deepEqual(e.cpu_sample_counts_by_pid, { 5: [1, 1, 1, 1, 1, 1, 1, 1, 2], 6: [0, 0, 0, 0, 1, 0, 0, 0, 0] });
  assert.equal(e.events_by_pid['5'].length, 1);
});

test('CPU density: at most 2000 buckets, counts saturate at 65535', async () => {
  // 1000 Hz over 3 s expects 3000 samples: capped to 2000 buckets of 1.5 ms.
  const e = await getJson(dense, `/api/process_events?${qs({ start_ns: 20000000, end_ns: 3020000000, max_events_per_pid: 1 })}`);
  assert.equal(e.cpu_sample_bucket_count, 2000);
  assert.equal(e.cpu_sample_counts_by_pid['7'][0], 65535);
  assert.equal(e.cpu_sample_counts_by_pid['7'].slice(1).reduce((a, b) => a + b, 0), 0);
  assert.deepEqual(Object.keys(e.events_by_pid), ['7']);
});

test('flame labels: Unicode White_Space trimmed at both ends as Rust str::trim does', async () => {
  // U+00A0, U+2007, U+3000, U+205F, U+0085 and ASCII around the names; U+200B (zero width
  // space) is not White_Space and stays; a label of spaces only is [unknown]; ';' and
  // newlines are replaced before trimming.
  const labels = ['\u00a0\u3000 hot\u2007', '\u205f\u0085mid;dle\n', '\u00a0 \u3000', '\u200bzw\u200b'];
  const dir = tmpdir();
  const v = await startViewer(write(dir, 'ws', [
    { event_type: 'cpu_sample', ts_ns: 10, pid: 1, tgid: 1, stack_trace: labels },
  ]));
  try {
    const f = await getJson(v, `/api/event_flamegraph?${qs({ start_ns: 0, end_ns: 20, event_type: 'cpu_sample', max_stacks: 10 })}`);
    assert.deepEqual(f.stacks, [{ frames: ['hot', 'mid:dle', '[unknown]', '\u200bzw\u200b'], weight: 1 }]);
    assert.ok(f.svg.includes('<title>hot (1 samples, 100.00%)</title>'));
  } finally {
    assert.equal(await stopViewer(v), 0);
  }
});
