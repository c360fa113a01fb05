// Cross-reader tests: every kind of file probex writes — a recording, `probex synth`, a
// `probex resymbolize` output and a hand-built edge-case trace written by probex's own
// Parquet writer — read by DuckDB, arrow-rs (parquet-wasm) and polars (nodejs-polars)
// to identical values in every column, and each carrying an ARROW:schema that an
// independent decoder (apache-arrow) reads as the reference's Arrow types.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  PROBEX, EDGE_TRACE, tmpdir, run, duckKv, readDuck, readArrowRs, readPolars, arrowRsSchema,
  decodeArrowSchema, describeSchema,
} from './lib.mjs';

// The reference's Arrow schema (its first 24 columns), then probex's own columns with the
// Arrow type of their Parquet type.  cpu: the reference has UInt8; probex keeps
// INT(32, unsigned) in Parquet so that CPUs past 255 do not wrap, and says UInt32 (a
// UInt8 hint over it: arrow-rs ignores it, polars truncates 4096 to 0).
const SCHEMA = [
  'event_type Utf8 not null', 'ts_ns UInt64 not null', 'pid UInt32 not null', 'tgid UInt32 not null',
  'process_name Utf8', 'stack_id Int32', 'kernel_stack_id Int32', 'stack_kind Utf8',
  'stack_trace List<item: Utf8View>', 'cpu UInt32 not null', 'prev_pid UInt32', 'next_pid UInt32',
  'prev_state Int64', 'parent_pid UInt32', 'child_pid UInt32', 'exit_code Int32', 'address UInt64',
  'error_code UInt64', 'fd Int64', 'count UInt64', 'ret Int64', 'submit_ts_ns UInt64',
  'io_uring_opcode UInt8', 'io_uring_res Int32',
  'latency_ns UInt64', 'stack_weight UInt32', 'child_tgid UInt32', 'is_thread Bool',
  'exit_signal Int32', 'prev_tgid UInt32', 'next_tgid UInt32', 'filename Utf8', 'mmap_prot UInt32',
  'mmap_flags UInt32', 'mmap_fd Int32', 'io_uring_user_data UInt64',
  'stack_modules List<item: Utf8View>', 'offset Int64', 'futex_op Int32', 'syscall_nr UInt32',
  'waker_pid UInt32', 'waker_tgid UInt32', 'waker_stack_trace List<item: Utf8View>',
  'stack_trace_id UInt32', 'stack_trace_first Bool', 'runnable_ns UInt64', 'probe_args Utf8', 'waker_name Utf8',
  'argv List<item: Utf8View>', 'fd_path Utf8',
];

// polars names its dtypes itself (String is its Utf8View-backed string).
const POLARS = {
  ts_ns: 'UInt64', pid: 'UInt32', cpu: 'UInt32', io_uring_opcode: 'UInt8', ret: 'Int64',
  exit_code: 'Int32', is_thread: 'Bool', process_name: 'String', stack_trace: 'List(DataType(String))',
};

// Everything the readers have to agree on for one file; returns DuckDB's view.
function checkFile(file) {
  const kv = duckKv(file);
  assert.ok(kv['ARROW:schema'], 'ARROW:schema key present');
  const { frame, schema } = decodeArrowSchema(kv['ARROW:schema']);
  assert.equal(frame.continuation, 0xffffffff, 'IPC continuation marker');
  assert.equal(frame.length + 8, frame.total, 'length prefix covers the padded flatbuffer');
  assert.equal(frame.total % 8, 0, 'message padded to 8 bytes');
  assert.deepEqual(describeSchema(schema), SCHEMA, 'ARROW:schema as apache-arrow decodes it');
  // arrow-rs takes the hint: Utf8View items, the child named "item", unsigned types.
  assert.deepEqual(describeSchema(arrowRsSchema(file)), SCHEMA, 'schema arrow-rs reports');

  const duck = readDuck(file), rs = readArrowRs(file), pol = readPolars(file);
  const names = SCHEMA.map((s) => s.split(' ')[0]);
  assert.deepEqual(duck.names, names);
  assert.deepEqual(rs.names, names);
  assert.deepEqual(pol.names, names);
  for (const [n, t] of Object.entries(POLARS))
    assert.equal(pol.dtypes[n], `DataType(${t})`, `polars dtype of ${n}`);
  assert.equal(duck.types.ts_ns, 'UBIGINT');
  assert.equal(duck.types.stack_trace, 'VARCHAR[]');
  for (const n of names) {
    assert.deepEqual(rs.cols[n], duck.cols[n], `${path.basename(file)}: arrow-rs = DuckDB in ${n}`);
    assert.deepEqual(pol.cols[n], duck.cols[n], `${path.basename(file)}: polars = DuckDB in ${n}`);
  }
  checkNumbering(duck.cols, path.basename(file));
  return duck;
}

// stack_trace_id: rows with a stack have a number, rows with the same number the same
// list, and stack_trace_first marks the first row of each number (what the viewer trusts).
function checkNumbering(cols, what) {
  const lists = new Map();
  if (cols.stack_trace_id.every((x) => x === null)) return;	/* a file that does not number */
  cols.stack_trace.forEach((l, i) => {
    const id = cols.stack_trace_id[i], first = cols.stack_trace_first[i];
    if (l === null) {
      assert.equal(id, null, `${what}: row ${i} has no stack but a number`);
      assert.equal(first, null, `${what}: row ${i} has no stack but stack_trace_first`);
      return;
    }
    assert.notEqual(id, null, `${what}: row ${i} has a stack but no number`);
    const key = String(id), seen = lists.has(key);
    if (seen) assert.deepEqual(l, lists.get(key), `${what}: row ${i}: number ${key} names two lists`);
    else lists.set(key, l);
    assert.equal(first, seen ? null : 'true', `${what}: row ${i}: stack_trace_first is ${first}`);
  });
}

const dir = tmpdir();
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('edge-case trace from the writer: u64 >= 2^63, null/empty lists, null items, non-ASCII', () => {
  const file = path.join(dir, 'edge.parquet');
  run(EDGE_TRACE, [file]);
  const d = checkFile(file).cols;
  // The rows edge_trace.c writes, so that three readers agreeing on a wrong value fails too.
  assert.deepEqual(d.ts_ns.slice(7), ['9223372036854775807', '9223372036854775808', '18446744073709551615']);
  assert.deepEqual(d.count, [null, null, null, null, '18446744073709551615', null, null, null, '9223372036854775808', null]);
  assert.equal(d.address[3], '18446744071578845184');
  assert.equal(d.error_code[3], '9223372036854775808');
  assert.equal(d.ret[5], '-9223372036854775808');
  assert.equal(d.latency_ns[5], '9223372036854775809');
  assert.equal(d.io_uring_user_data[7], '18446744073709551614');
  assert.equal(d.prev_state[6], '9223372036854775807');
  assert.deepEqual([d.stack_id[3], d.kernel_stack_id[3], d.exit_code[9]], ['-2147483648', '2147483647', '-1']);
  assert.deepEqual([d.cpu[6], d.child_pid[0], d.io_uring_opcode[7], d.fd[4]], ['4294967295', '4294967295', '255', '-100']);
  assert.deepEqual(d.process_name, ['main', 'prüf-日本', '', 'prüf-日本', 'main', null, 'main', 'prüf-日本', 'main', 'prüf-日本']);
  assert.deepEqual(d.stack_trace.slice(0, 5), [
    ['[user]', 'main', 'fork_child'], [], ['[user]', null, 'leaf'],
    ['[user]', 'main', '日本語', '[kernel]', 'leaf'], null,
  ]);
  assert.deepEqual(d.is_thread, ['false', null, null, null, null, null, null, null, null, 'true']);
});

test('a process name that is not UTF-8: every reader refuses the file', () => {
  // Recordings never contain one (finalize writes U+FFFD, see the recording test); a
  // file that did would be unreadable to all three, which is why.
  const file = path.join(dir, 'bad-utf8.parquet');
  run(EDGE_TRACE, [file, '--bad-utf8']);
  assert.throws(() => readDuck(file), /Invalid string encoding found in Parquet file/);
  assert.throws(() => readArrowRs(file), /non UTF-8 data/);
  assert.throws(() => readPolars(file), /invalid UTF-8/);
});

test('probex synth', () => {
  const file = path.join(dir, 'synth.parquet');
  run(PROBEX, ['synth', '-o', file, '--events', '5000', '--seed', '5']);
  const d = checkFile(file).cols;
  assert.ok(d.ts_ns.length >= 5000);
  assert.ok(d.stack_trace.some((l) => l === null) && d.stack_trace.some((l) => l && l.length > 1));
});

const root = process.getuid && process.getuid() === 0;

test('a recording, and its resymbolized copy', { skip: !root && 'recording needs root' }, () => {
  // Two copies of /bin/true: a non-ASCII name, and a Latin-1 one that is not UTF-8.
  const utf8 = path.join(dir, 'prüf-日本');
  const latin1 = Buffer.concat([Buffer.from(path.join(dir, 'caf')), Buffer.from([0xe9])]);
  fs.copyFileSync('/bin/true', utf8);
  fs.copyFileSync('/bin/true', latin1);
  fs.chmodSync(utf8, 0o755);
  fs.chmodSync(latin1, 0o755);
  const file = path.join(dir, 'rec.parquet');
  const script = Buffer.concat([Buffer.from(`'${utf8}'; '`), latin1, Buffer.from("'; ls / >/dev/null")]);
  const r = spawnRecord(file, script);
  assert.equal(r.status, 0, r.stderr);
  const d = checkFile(file).cols;
  const names = new Set(d.process_name);
  assert.ok(names.has('prüf-日本'), [...names].join(','));
  assert.ok(names.has('caf\ufffd'), [...names].join(','));
  assert.ok(d.stack_trace.some((l) => l && l.length > 1), 'some stacks');

  // resymbolize rewrites through the same writer: same schema, same rows (the binaries
  // are unchanged, so the labels are too).  It numbers the lists anew, by their content
  // (checkFile checks the numbering).
  const resym = path.join(dir, 'resym.parquet');
  run(PROBEX, ['resymbolize', file, '-o', resym]);
  const r2 = checkFile(resym).cols;
  for (const n of Object.keys(d))
    if (n !== 'stack_trace_id' && n !== 'stack_trace_first') assert.deepEqual(r2[n], d[n], `resymbolized ${n}`);
});

function spawnRecord(file, script) {
  // argv bytes that are not UTF-8 cannot go through a JS string: sh reads them from a file.
  const sh = path.join(dir, 'run.sh');
  fs.writeFileSync(sh, script);
  return spawnSync(PROBEX, ['-q', '-o', file, '--no-viewer', '--', 'sh', sh], { encoding: 'utf8', timeout: 60000 });
}
