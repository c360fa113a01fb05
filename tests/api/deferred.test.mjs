// The compare view defers what its first answers do not need (both traces' pairs, BASE's
// process names and lifetimes) until both traces have their stacks.  With the test build's
// PROBEX_TEST_HOLD_DEFERRED it starts only when a request waits for it: each endpoint's
// first request, right after the compare view is ready, must answer as the trace alone.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { getJson, qs, startViewer, stopViewer, tmpdir, writeTrace } from './lib.mjs';

const TEST_BIN = path.join(path.dirname(process.env.PROBEX || path.resolve('build/probex')), 'probex-test');
const ALL = { start_ns: 0, end_ns: '18446744073709551615' };
const EXTRA = { columns: { latency_ns: 'UBIGINT' } };

// A process 100 and its thread 101 (renamed), syscalls with sizes, faults, samples.
function rows(seed) {
  let x = seed;
  const rnd = (n) => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0), (x >>> 16) % n);
  const out = [
    { event_type: 'process_fork', ts_ns: 10, pid: 100, tgid: 100, process_name: 'app', child_pid: 101, parent_pid: 100 },
  ];
  for (let i = 0; i < 400; i++) {
    const pid = 100 + rnd(2), ts = 100 + i * 20;
    const name = pid === 101 && i > 200 ? 'worker2' : pid === 101 ? 'worker' : 'app';
    const row = { ts_ns: ts, pid, tgid: 100, process_name: name };
    const k = rnd(5);
    if (k === 0) out.push({ ...row, event_type: 'cpu_sample', stack_trace: ['main', rnd(2) ? 'a' : 'b'] });
    else if (k === 1) out.push({ ...row, event_type: 'page_fault', address: 4096 * rnd(50) });
    else if (k === 2) out.push({ ...row, event_type: 'off_cpu', latency_ns: 1000 + rnd(9000), stack_trace: ['main', 'wait'] });
    else {
      const op = k === 3 ? 'read' : 'write', n = 1 + rnd(4096);
      out.push({ ...row, event_type: `syscall_${op}_enter`, fd: 3, count: n });
      out.push({ ...row, ts_ns: ts + 5 + rnd(10), event_type: `syscall_${op}_exit`, fd: 3, ret: rnd(8) ? n : -11,
        latency_ns: 5 });
    }
  }
  out.push({ event_type: 'process_exit', ts_ns: 9000, pid: 101, tgid: 100, process_name: 'worker2', exit_code: 3 });
  out.push({ event_type: 'process_exit', ts_ns: 9100, pid: 100, tgid: 100, process_name: 'app', exit_code: 0 });
  return out;
}

// Every endpoint whose answer needs a deferred part (names, lifetimes, pairs).
const QUERIES = [
  `/api/process_lifetimes`,
  `/api/process_events?${qs({ ...ALL, max_events_per_pid: 500 })}`,
  `/api/histogram?${qs({ ...ALL, num_buckets: 7 })}`,
  `/api/event_type_counts?${qs(ALL)}`,
  `/api/pid_event_type_counts?${qs({ ...ALL, pid: 101 })}`,
  `/api/syscall_latency_stats?${qs(ALL)}`,
  `/api/io_statistics?${qs(ALL)}`,
  `/api/memory_statistics?${qs(ALL)}`,
  `/api/event_flamegraph?${qs({ ...ALL, tgid: 100, event_type: 'cpu_sample', max_stacks: 100 })}`,
  `/api/event_list?${qs({ ...ALL, pid: 101, limit: 50, offset: 0 })}`,
];

let dir, files, alone;

// A compare view with the deferred parts held, ready as the bench counts it.
async function held(extra = []) {
  const v = await startViewer(files.new, ['--base', files.base, '-v', ...extra],
    { bin: TEST_BIN, env: { PROBEX_TEST_HOLD_DEFERRED: '1' } });
  await getJson(v, `/api/diff_flamegraph?${qs({ ...ALL, event_type: 'cpu_sample', max_stacks: 100 })}`);
  await getJson(v, `/api/event_list?${qs({ ...ALL, pid: 100, limit: 1, offset: 0 })}`);
  return v;
}

before(async () => {
  dir = tmpdir();
  files = {
    base: writeTrace(path.join(dir, 'base.parquet'), rows(3), EXTRA),
    new: writeTrace(path.join(dir, 'new.parquet'), rows(5), EXTRA),
  };
  alone = { base: await startViewer(files.base), new: await startViewer(files.new) };
});
after(async () => {
  await stopViewer(alone.base);
  await stopViewer(alone.new);
});

test('held: the compare view is ready without the deferred parts, as the UI opens it', async () => {
  const v = await held();
  try {
    // The compare card's first requests before its diff flame graph.
    await getJson(v, '/api/summary?trace=base');
    await getJson(v, `/api/histogram?${qs({ ...ALL, num_buckets: 200, trace: 'base' })}`);
    await new Promise((r) => setTimeout(r, 300));
    assert.doesNotMatch(v.child.log, /names read|operations paired/, 'nothing deferred ran unasked');
  } finally {
    await stopViewer(v);
  }
});

for (const q of QUERIES) {
  for (const trace of ['base', 'new']) {
    test(`held: the first ${q.split('?')[0]} of ${trace} answers as the trace alone`, async () => {
      const v = await held();
      try {
        const sep = q.includes('?') ? '&' : '?';
        assert.deepEqual(await getJson(v, `${q}${sep}trace=${trace}`), await getJson(alone[trace], q));
      } finally {
        await stopViewer(v);
      }
    });
  }
}

test('held: the diff flame graph of a base process (its threads from the names) is right', async () => {
  const v = await held();
  try {
    const d = await getJson(v, `/api/diff_flamegraph?${qs({ ...ALL, base_tgid: 100, event_type: 'cpu_sample', max_stacks: 100 })}`);
    const f = await getJson(alone.base, `/api/event_flamegraph?${qs({ ...ALL, tgid: 100, event_type: 'cpu_sample', max_stacks: 100 })}`);
    assert.equal(d.base_total, f.total_samples);
    const one = await getJson(alone.base, `/api/event_flamegraph?${qs({ ...ALL, pid: 100, event_type: 'cpu_sample', max_stacks: 100 })}`);
    assert.ok(d.base_total > one.total_samples, 'the thread 101 counts too');
  } finally {
    await stopViewer(v);
  }
});
