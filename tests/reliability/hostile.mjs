// Hostile requests against a running `probex --view` (base URL in argv[2]).
//
// Every parameter of every endpoint gets quotes, SQL fragments, NUL bytes, invalid
// UTF-8, malformed escapes, numbers in foreign syntaxes and 1 MB values:
//   numeric parameters → 400 JSON naming the parameter;
//   event_type / event_types → 400 naming it, or a valid empty answer (an unknown type);
//   values past the server's request-line limit (~32 KB) → 414, refused before parsing;
// and afterwards the data served is byte-for-byte what it was (nothing changed a query).
// Static paths that try to leave the embedded files → 404 without file contents; methods
// other than GET/HEAD → 405.  Prints "hostile: tried N ok M" and exits 1 on any failure.
import http from 'node:http';

const base = new URL(process.argv[2]);
let tried = 0, ok = 0;
const failures = [];

function request(path, method = 'GET') {
  return new Promise((resolve) => {
    const req = http.request({ host: base.hostname, port: base.port, path, method, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8'),
        type: res.headers['content-type'] || '' }));
    });
    req.on('error', (e) => resolve({ status: 0, body: String(e), type: '' }));
    req.end();
  });
}

function json(r) {
  try { return JSON.parse(r.body); } catch { return undefined; }
}

function check(what, cond, detail) {
  tried++;
  if (cond) ok++;
  else failures.push(`${what}: ${detail}`);
}

const enc = (buf) => [...buf].map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b))
  ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

// Values: [label, already-encoded query text].
const B = (s) => Buffer.from(s, 'latin1');
const values = [
  ['single quote', enc(B("'"))],
  ['double quote', enc(B('"'))],
  ['OR 1=1', enc(B("' OR 1=1 --"))],
  ['DROP TABLE', enc(B("'; DROP TABLE events; --"))],
  ['DROP TABLE ev', enc(B('1; DROP TABLE ev; --'))],
  ['UNION', enc(B(') UNION SELECT * FROM ev --'))],
  ['statement parameter', enc(B('$1'))],
  ['type with quote', enc(B("cpu_sample' OR '1'='1"))],
  ['NUL after a number', `1${enc(B('\0'))}`],
  ['NUL after a type', `cpu_sample${enc(B('\0'))}x`],
  ['invalid UTF-8 ff fe', '%FF%FE'],
  ['invalid UTF-8 c3 28', '%C3%28'],
  ['UTF-16 surrogate', '%ED%A0%80'],
  ['overlong slash', '%C0%AF'],
  ['raw percent', '%'],
  ['malformed escape', '%zz'],
  ['double-encoded quote', '%2527'],
  ['path', enc(B('../../etc/passwd'))],
  ['markup', enc(B('<script>alert(1)</script>'))],
  ['negative', '-1'],
  ['exponent', '1e3'],
  ['hex', '0x10'],
  ['leading space', '%201'],
  ['decimal', '1.5'],
  ['2^64', '18446744073709551616'],
  ['empty list items', enc(B(',,,'))],
  ['30 KB', 'A'.repeat(30 * 1024)],
  ['1 MB', 'A'.repeat(1 << 20)],
  ['1 MB of digits', '9'.repeat(1 << 20)],
];

const sum = json(await request('/api/summary'));
if (!sum) { console.error('hostile: no summary'); process.exit(1); }
const lo = sum.min_ts_ns, hi = sum.max_ts_ns, pid = sum.unique_pids[Math.floor(sum.unique_pids.length / 2)];
const endpoints = {
  histogram: { start_ns: lo, end_ns: hi, num_buckets: 80 },
  event_type_counts: { start_ns: lo, end_ns: hi },
  pid_event_type_counts: { pid, start_ns: lo, end_ns: hi },
  syscall_latency_stats: { start_ns: lo, end_ns: hi, pid },
  process_events: { start_ns: lo, end_ns: hi, max_events_per_pid: 500 },
  event_flamegraph: { start_ns: lo, end_ns: hi, event_type: 'cpu_sample', max_stacks: 5000, pid },
  io_statistics: { start_ns: lo, end_ns: hi, pid, max_points: 100 },
  memory_statistics: { start_ns: lo, end_ns: hi, max_points: 100 },
  event_list: { start_ns: lo, end_ns: hi, pid, limit: 50, offset: 0, event_types: 'cpu_sample,syscall_read_exit' },
};
const qs = (o) => Object.entries(o).map(([k, v]) => `${k}=${v}`).join('&');

// What must not change: answers that read the whole data set.
const witnesses = ['/api/summary', '/api/process_lifetimes', `/api/event_type_counts?start_ns=0&end_ns=18446744073709551615`,
  ...Object.entries(endpoints).map(([e, p]) => `/api/${e}?${qs(p)}`)];
const before = [];
for (const w of witnesses) {
  const r = await request(w);
  if (r.status !== 200) { console.error(`hostile: ${w} gave ${r.status}: ${r.body.slice(0, 300)}`); process.exit(1); }
  before.push(r.body);
}

for (const [ep, params] of Object.entries(endpoints)) {
  for (const name of Object.keys(params)) {
    for (const [label, v] of values) {
      const r = await request(`/api/${ep}?${qs({ ...params, [name]: v })}`);
      const j = json(r);
      const what = `/api/${ep} ${name}=<${label}>`;
      if (v.length > 32 * 1024 - 1024) {
        check(what, r.status === 414 || (r.status === 400 && j?.parameter === name),
          `want 414 (or 400 naming ${name}), got ${r.status}`);
        continue;
      }
      const named = r.status === 400 && j && j.parameter === name && typeof j.error === 'string' &&
        j.error.includes(name) && /application\/json/.test(r.type);
      if (name === 'event_type' || name === 'event_types') {
        // An unknown type is simply absent from the trace: an empty, valid answer.
        const empty = r.status === 200 && j &&
          (name === 'event_type' ? j.total_samples === 0 && j.svg === null
            : j.total_in_range === 0 && j.events.length === 0);
        check(what, named || empty, `got ${r.status}: ${r.body.slice(0, 200)}`);
      } else {
        check(what, named, `want 400 naming ${name}, got ${r.status}: ${r.body.slice(0, 200)}`);
      }
    }
  }
}

// Unknown parameters are ignored, hostile or not; a NUL anywhere is refused.
for (const [label, v] of values.filter(([, v]) => v.length < 1024)) {
  const r = await request(`/api/summary?${v}=${v}`);
  check(`/api/summary with a parameter named <${label}>`, r.status === 200 || r.status === 400,
    `got ${r.status}`);
}

// Static paths that try to escape, in every spelling; the request target is sent raw.
// Dots (plain, encoded, double-encoded), absolute forms and backslashes are 404s.  Paths
// without a dot once decoded — an overlong "%c0%ae", a NUL that ends the decoded path —
// may get the single-page app's index.html, like any route; nothing else, ever.
const index = (await request('/')).body;
const must404 = ['/../etc/passwd', '/../../../../etc/passwd', '/%2e%2e/etc/passwd', '/%2E%2E%2Fetc%2Fpasswd',
  '/..%2f..%2fetc/passwd', '/.%2e/.%2e/etc/passwd', '/%252e%252e/etc/passwd', '//etc/passwd', '///etc/passwd',
  '/a/../../etc/passwd', '/index.html/../../etc/passwd', '/assets/..;/..;/etc/passwd', '/..\\..\\etc\\passwd',
  '/%5c..%5c..%5cetc/passwd', 'http://127.0.0.1/../../etc/passwd', 'http://evil.example/etc/passwd',
  '/..', '/.', '/.git/config', '/build/probex.c', '/web/../README.md'];
const indexOk = ['/%c0%ae%c0%ae/etc/passwd', '/etc/passwd%00.html', '/%00', '/.%00./etc/passwd', '/proc/self/environ',
  '/~root/bashrc', '/%ff%fe'];
for (const p of must404) {
  const r = await request(p);
  check(`GET ${p}`, r.status === 404 && !r.body.includes('root:'), `got ${r.status}: ${r.body.slice(0, 120)}`);
}
for (const p of indexOk) {
  const r = await request(p);
  check(`GET ${p}`, r.status === 404 || (r.status === 200 && r.body === index), `got ${r.status}: ${r.body.slice(0, 120)}`);
}
for (const m of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE']) {
  const r = await request('/api/summary', m);
  check(`${m} request`, r.status === 405 || r.status === 400, `got ${r.status}`);
}

// Nothing above changed the data.
for (let i = 0; i < witnesses.length; i++) {
  const r = await request(witnesses[i]);
  check(`unchanged ${witnesses[i]}`, r.status === 200 && r.body === before[i], `answer changed (${r.status})`);
}

for (const f of failures.slice(0, 30)) console.error(`FAIL: ${f}`);
console.log(`hostile: tried ${tried} ok ${ok}`);
process.exit(failures.length ? 1 : 0);
