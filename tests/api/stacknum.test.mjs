// Numbered stacks: a file with stack_trace_id and stack_trace_first has its distinct lists
// read from the first rows only.  The answers must be those of the same rows without the
// two columns (every list read), and numbers that cannot be trusted (a number with no
// first row or two, a first row without a list) must fall back to reading every list.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { getJson, qs, startViewer, stopViewer, tmpdir, writeTrace } from './lib.mjs';

const NUMBERED = { stack_trace_id: 'UINTEGER', stack_trace_first: 'BOOLEAN' };
const A = ['[user]', 'main', 'work', 'leaf_a'];
const B = ['[user]', 'main', 'work', 'leaf_b', '[kernel]', 'do_syscall_64'];
const C = ['[user]', 'main', 'idle'];
// Rows in file order: each list's first row carries stack_trace_first.
const LISTS = [A, B, A, C, B, B, A, null, C, A];

function rows(numbers) {
  return LISTS.map((s, i) => ({
    event_type: 'cpu_sample', ts_ns: 1000 * (i + 1), pid: 10 + (i % 2), tgid: 10,
    process_name: 'w', stack_trace: s, ...(numbers ? numbers(s, i) : {}),
  }));
}

// The numbers a writer gives: one per distinct list, in order of first appearance.
function honest(s, i) {
  if (!s) return {};
  const id = [A, B, C].indexOf(s);
  return { stack_trace_id: id, stack_trace_first: LISTS.indexOf(s) === i ? true : null };
}

const W = { start_ns: 0, end_ns: 20000 };
const views = {};

async function answers(v) {
  const out = [];
  for (const extra of [{}, { pid: 10 }, { pid: 11 }, { start_ns: 3000, end_ns: 7000 }]) {
    const f = await getJson(v, `/api/event_flamegraph?${qs({ ...W, event_type: 'cpu_sample', max_stacks: 100, ...extra })}`);
    out.push({ svg: f.svg, stacks: [...f.stacks].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))) });
  }
  const l = await getJson(v, `/api/event_list?${qs({ ...W, pid: 10, limit: 100, offset: 0 })}`);
  out.push(l.events.map((e) => e.stack_trace));
  return out;
}

before(async () => {
  const dir = tmpdir();
  const files = {
    plain: writeTrace(path.join(dir, 'plain.parquet'), rows()),
    numbered: writeTrace(path.join(dir, 'numbered.parquet'), rows(honest), { columns: NUMBERED }),
    // List C's first row is gone (e.g. a file filtered by a query that kept the columns).
    orphan: writeTrace(path.join(dir, 'orphan.parquet'),
      rows((s, i) => (s === C ? { stack_trace_id: 2 } : honest(s, i))), { columns: NUMBERED }),
    // The first row of A has no list although A's other rows have it.
    plainHollow: writeTrace(path.join(dir, 'plain-hollow.parquet'),
      rows().map((r, i) => (i === 0 ? { ...r, stack_trace: null } : r))),
    hollow: writeTrace(path.join(dir, 'hollow.parquet'),
      rows((s, i) => honest(s, i)).map((r, i) => (i === 0 ? { ...r, stack_trace: null } : r)), { columns: NUMBERED }),
    // Two files' rows concatenated, each numbered on its own: number 0 has two first rows.
    merged: writeTrace(path.join(dir, 'merged.parquet'),
      rows((s, i) => (i < 5 ? honest(s, i) : s ? { stack_trace_id: [A, B, C].indexOf(s) === 0 ? 1 : 0,
        stack_trace_first: i === 5 ? true : null } : {})), { columns: NUMBERED }),
    // Numbers that lie: every row says 0, so with the numbers trusted all show A.
    liar: writeTrace(path.join(dir, 'liar.parquet'),
      rows((s, i) => (s ? { stack_trace_id: 0, stack_trace_first: i === 0 ? true : null } : {})), { columns: NUMBERED }),
  };
  for (const [k, f] of Object.entries(files)) views[k] = await startViewer(f);
});

after(async () => {
  for (const v of Object.values(views)) await stopViewer(v);
});

test('numbered lists: the same answers as reading every list', async () => {
  assert.deepEqual(await answers(views.numbered), await answers(views.plain));
});

test('a number without a first row: every list is read instead', async () => {
  assert.deepEqual(await answers(views.orphan), await answers(views.plain));
});

test('a number with two first rows: every list is read instead', async () => {
  assert.deepEqual(await answers(views.merged), await answers(views.plain));
});

test('numbers are trusted when every number has a first row', async () => {
  // The liar file's rows all claim list 0 (A): the viewer shows A for each of them,
  // which is how it shows that the lists were not read row by row.
  const f = await getJson(views.liar, `/api/event_flamegraph?${qs({ ...W, event_type: 'cpu_sample', max_stacks: 100 })}`);
  assert.deepEqual(f.stacks, [{ frames: A, weight: 9 }]);
});

test('a first row whose list is NULL: every list is read instead', async () => {
  assert.deepEqual(await answers(views.hollow), await answers(views.plainHollow));
});
