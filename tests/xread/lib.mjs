// Three independent readers of one Parquet file, each giving the same plain shape:
// { names, cols: { name: [cell...] } } with every integer and boolean as its decimal
// string (exact for u64 and i64), strings as JS strings, lists as arrays of string|null,
// NULL as null.  DuckDB is the project's own (through sqlrun); arrow-rs is parquet-wasm;
// polars is nodejs-polars.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import * as arrow from 'apache-arrow';
import * as pw from 'parquet-wasm';
import pl from 'nodejs-polars';

export const PROBEX = process.env.PROBEX || path.resolve('build/probex');
export const SQLRUN = process.env.SQLRUN || path.resolve('build/tests/api/sqlrun');
export const EDGE_TRACE = process.env.EDGE_TRACE || path.resolve('build/tests/xread/edge_trace');

export function tmpdir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'probex-xread-'));
}

export function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 60000 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return r;
}

const q = (s) => `'${String(s).replaceAll("'", "''")}'`;

function sql(text) {
  const r = spawnSync(SQLRUN, [], { input: text, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`sqlrun: ${r.stderr}`);
}

// Rows of a query, through DuckDB's JSON writer (one object per line).
function duckRows(select) {
  const out = path.join(tmpdir(), 'q.json');
  sql(`COPY (${select}) TO ${q(out)} (FORMAT json);`);
  const rows = fs.readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  fs.rmSync(path.dirname(out), { recursive: true });
  return rows;
}

export function duckKv(file) {
  const kv = {};
  for (const r of duckRows(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${q(file)})`))
    kv[r.k] = r.v;
  return kv;
}

export function readDuck(file) {
  const desc = duckRows(`SELECT column_name AS n, column_type AS t FROM (DESCRIBE SELECT * FROM read_parquet(${q(file)}))`);
  const exprs = desc.map(({ n, t }) =>
    (t === 'VARCHAR' || t.endsWith('[]') ? `"${n}"` : `CAST("${n}" AS VARCHAR) AS "${n}"`));
  const rows = duckRows(`SELECT ${exprs.join(', ')} FROM read_parquet(${q(file)}, file_row_number = true) ORDER BY file_row_number`);
  const names = desc.map((d) => d.n);
  const cols = Object.fromEntries(names.map((n) => [n, rows.map((r) => r[n])]));
  return { names, types: Object.fromEntries(desc.map((d) => [d.n, d.t])), cols };
}

const plain = (v) => {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  return [...v].map(plain);		// an arrow list cell (a Vector)
};

// arrow-rs through parquet-wasm.  Its readParquet casts view types to plain ones for JS
// (Utf8View → Utf8) before handing over IPC; readSchema reports the file's own types.
export function readArrowRs(file) {
  const buf = new Uint8Array(fs.readFileSync(file));
  const t = arrow.tableFromIPC(pw.readParquet(buf).intoIPCStream());
  const names = t.schema.fields.map((f) => f.name);
  const cols = {};
  for (const n of names) {
    const c = t.getChild(n);
    cols[n] = Array.from({ length: t.numRows }, (_, i) => plain(c.get(i)));
  }
  return { names, cols };
}

export function arrowRsSchema(file) {
  const buf = new Uint8Array(fs.readFileSync(file));
  return arrow.tableFromIPC(pw.readSchema(buf).intoIPCStream()).schema;
}

// polars: lists and strings as they are; every other column cast to String by polars
// itself, because Series.toArray() hands Int64 over as a (lossy) JS number.
export function readPolars(file) {
  const df = pl.readParquet(fs.readFileSync(file));
  const names = df.columns;
  const cols = {};
  for (const n of names) {
    const s = df.getColumn(n);
    const str = s.dtype.equals(pl.Utf8) || s.dtype.variant === 'List';
    cols[n] = [...(str ? s : s.cast(pl.Utf8)).toArray()].map(plain);
  }
  return { names, dtypes: Object.fromEntries(names.map((n) => [n, String(df.getColumn(n).dtype)])), cols };
}

// The ARROW:schema value decoded by apache-arrow, not by probex: base64 → the
// encapsulated Schema message, followed by an end-of-stream marker it is a whole IPC stream.
export function decodeArrowSchema(b64) {
  const msg = Buffer.from(b64, 'base64');
  const frame = { continuation: msg.readUInt32LE(0), length: msg.readInt32LE(4), total: msg.length };
  const eos = Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
  const schema = arrow.tableFromIPC(Buffer.concat([msg, eos])).schema;
  return { frame, schema };
}

// "UInt64", "Utf8", "List<item: Utf8View>", ...
export function describeType(t) {
  switch (t.typeId) {
    case arrow.Type.Int: return `${t.isSigned ? 'Int' : 'UInt'}${t.bitWidth}`;
    case arrow.Type.Utf8: return 'Utf8';
    case arrow.Type.Utf8View: return 'Utf8View';
    case arrow.Type.Bool: return 'Bool';
    case arrow.Type.List: {
      const c = t.children[0];
      return `List<${c.name}: ${describeType(c.type)}${c.nullable ? '' : ' not null'}>`;
    }
    default: return `type ${t.typeId}`;
  }
}

export const describeSchema = (s) => s.fields.map((f) => `${f.name} ${describeType(f.type)}${f.nullable ? '' : ' not null'}`);
