// Shared helpers for the viewer API tests: write hand-built traces with DuckDB, run a
// real `probex --view` on them, fetch its JSON.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const PROBEX = process.env.PROBEX || path.resolve('build/probex');
export const SQLRUN = process.env.SQLRUN || path.resolve('build/tests/api/sqlrun');

// The reference's final Parquet schema, in order (the order is significant), with DuckDB types.
export const COLUMNS = [
  ['event_type', 'VARCHAR'], ['ts_ns', 'UBIGINT'], ['pid', 'UINTEGER'], ['tgid', 'UINTEGER'],
  ['process_name', 'VARCHAR'], ['stack_id', 'INTEGER'], ['kernel_stack_id', 'INTEGER'],
  ['stack_kind', 'VARCHAR'], ['stack_trace', 'VARCHAR[]'], ['cpu', 'UTINYINT'],
  ['prev_pid', 'UINTEGER'], ['next_pid', 'UINTEGER'], ['prev_state', 'BIGINT'],
  ['parent_pid', 'UINTEGER'], ['child_pid', 'UINTEGER'], ['exit_code', 'INTEGER'],
  ['address', 'UBIGINT'], ['error_code', 'UBIGINT'], ['fd', 'BIGINT'], ['count', 'UBIGINT'],
  ['ret', 'BIGINT'], ['submit_ts_ns', 'UBIGINT'], ['io_uring_opcode', 'UTINYINT'],
  ['io_uring_res', 'INTEGER'],
];

export const META = { 'probex.sample_freq_hz': '1000', 'probex.stack_trace_format': 'symbolized_v1' };

export function tmpdir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probex-api-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function sqlString(s) {
  return `'${String(s).replaceAll("'", "''")}'`;
}

function literal(v, type) {
  if (v === null || v === undefined) return `NULL::${type}`;
  if (Array.isArray(v)) return `[${v.map((x) => (x === null ? 'NULL' : sqlString(x))).join(', ')}]::${type}`;
  if (typeof v === 'string') return `${sqlString(v)}::${type}`;
  return `${typeof v === 'bigint' ? v.toString() : v}::${type}`;
}

export function runSql(sql) {
  const r = spawnSync(SQLRUN, [], { input: sql, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`sqlrun failed: ${r.stderr}\n${sql.slice(0, 2000)}`);
}

// Write rows (objects keyed by column name; missing columns are NULL, cpu defaults to 0)
// as a trace in the reference format.  opts: { meta, columns (override/extra), drop }.
export function writeTrace(file, rows, opts = {}) {
  const meta = opts.meta === undefined ? META : opts.meta;
  let columns = COLUMNS.filter(([n]) => !(opts.drop || []).includes(n));
  if (opts.columns) {
    columns = columns.map(([n, t]) => [n, opts.columns[n] || t]);
    for (const [n, t] of Object.entries(opts.columns))
      if (!columns.some(([c]) => c === n)) columns.push([n, t]);
  }
  const tuple = (row) =>
    `(${columns.map(([n, t]) => literal(n === 'cpu' && row[n] === undefined ? 0 : row[n], t)).join(', ')})`;
  const names = columns.map(([n]) => `"${n}"`).join(', ');
  const outer = columns.map(([n, t]) => `"${n}"::${t} AS "${n}"`).join(', ');
  // VALUES keeps the rows in the order given: the file order each test chooses.
  const body = `SELECT ${outer} FROM (VALUES ${(rows.length ? rows : [{}]).map(tuple).join(',\n')}) ` +
    `t(${names})${rows.length ? '' : ' WHERE false'}`;
  const kv = meta
    ? `, KV_METADATA {${Object.entries(meta).map(([k, v]) => `"${k}": ${sqlString(v)}`).join(', ')}}`
    : '';
  runSql(`COPY (${body}) TO ${sqlString(file)} (FORMAT parquet${kv});`);
  return file;
}

// Start `probex --view file -p 0`; resolves once the URL is printed.  opts: { bin, env }.
export function startViewer(file, args = [], opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(opts.bin || PROBEX, ['--view', file, '-p', '0', ...args],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } });
    let err = '';
    const onData = (d) => {
      err += d.toString();
      const m = err.match(/viewer at (http:\/\/[^\s]+?)\/?\n/);
      if (m) {
        child.stderr.off('data', onData);
        child.stderr.on('data', (x) => { child.log += x.toString(); });
        child.log = err;
        resolve({ child, base: m[1] });
      }
    };
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`viewer exited ${code} before serving: ${err}`)));
  });
}

export function stopViewer(v, signal = 'SIGINT') {
  return new Promise((resolve) => {
    if (v.child.exitCode !== null) return resolve(v.child.exitCode);
    v.child.once('exit', (code, sig) => resolve(code ?? sig));
    v.child.kill(signal);
  });
}

// Run probex to completion (for files it must refuse): { code, stderr }.
export function runProbex(args, timeoutMs = 20000) {
  const r = spawnSync(PROBEX, args, { encoding: 'utf8', timeout: timeoutMs });
  return { code: r.status, signal: r.signal, stderr: r.stderr, stdout: r.stdout };
}

export async function get(v, p) {
  const r = await fetch(v.base + p);
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: r.status, json, text, type: r.headers.get('content-type') };
}

export async function getJson(v, p) {
  const r = await get(v, p);
  if (r.status !== 200) throw new Error(`${p}: HTTP ${r.status}: ${r.text}`);
  return r.json;
}

export function qs(params) {
  return Object.entries(params).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${v}`).join('&');
}

// The reference's fields only.  probex adds payload fields to event_list rows and
// last_process_name/tgid/argv/cpu_ns/threads to process_lifetimes (src/server/API.md):
// tests of the reference's semantics compare these views; the additions have their own.
const REF_EVENT = ['ts_ns', 'latency_ns', 'event_type', 'pid', 'stack_trace'];
export function refEvent(e) {
  return Object.fromEntries(REF_EVENT.filter((k) => k in e).map((k) => [k, e[k]]));
}
export function refEvents(r) {
  return { ...r, events: r.events.map(refEvent) };
}
export function refLifetimes(r) {
  return {
    ...r,
    processes: r.processes.map(({ last_process_name, tgid, argv, cpu_ns, thread_cpu_ns, threads, ...p }) => p),
  };
}
// The payload event_list adds to a row: its non-null columns other than the core ones,
// whatever the file's schema (`row`: the file row number the oracle read with the row).
// errno names by number, as glibc's strerrorname_np gives them (EAGAIN, not EWOULDBLOCK).
const ERRNO = {};
for (const [name, n] of Object.entries(os.constants.errno)) if (!(n in ERRNO)) ERRNO[n] = name;
Object.assign(ERRNO, { 11: 'EAGAIN', 35: 'EDEADLK', 95: 'EOPNOTSUPP' });
export function payloadOf(row) {
  const out = {};
  for (const [k, v] of Object.entries(row)) {
    if (['event_type', 'ts_ns', 'pid', 'stack_trace', 'latency_ns', 'row'].includes(k)) continue;
    if (Array.isArray(v)) continue;	// list columns (stack_modules) are no payload: scalars only
    if (v !== null && v !== undefined) out[k] = v;
    // A failed call's error by name beside the number (ret, io_uring_res).
    if ((k === 'ret' || k === 'io_uring_res') && v < 0 && v >= -4095 && ERRNO[-v]) out.errno = ERRNO[-v];
  }
  return out;
}
