// Latency and size distributions per operation. The server may send raw sorted arrays (the
// reference) or bounded summaries (CDF points, histograms); both become a `Dist`. Histogram
// bins are logarithmic and shared by every operation of a chart, so ms-scale fsync and
// µs-scale reads both land in real bins (fixes §10.10).

import type { OpStats } from './api';

export interface Dist {
  /** (value, fraction of values ≤ value), ascending in both. */
  cdf: Array<[number, number]>;
  n: number;
  zeros: number;
  min: number;
  max: number;
}

export type Kind = 'latency' | 'size';

const RAW = { latency: 'latencies_ns', size: 'sizes_bytes' } as const;

/** The distribution of `kind` for one operation, or null when it has no values. */
export function opDist(op: OpStats, kind: Kind): Dist | null {
  const o = op as Record<string, unknown>;
  const raw = o[RAW[kind]];
  if (Array.isArray(raw) && raw.length) return fromSorted(raw as number[]);
  const summary = o[kind === 'latency' ? 'latency_dist' : 'size_dist'] ?? o[kind === 'latency' ? 'latency' : 'size'];
  if (summary && typeof summary === 'object' && !Array.isArray(summary)) {
    const d = fromSummary(summary as Record<string, unknown>);
    if (d) return d;
  }
  const cdf = o[kind === 'latency' ? 'latency_cdf' : 'size_cdf'];
  if (cdf) {
    const d = fromCdf(cdf, Number(o[kind === 'latency' ? 'latency_count' : 'size_count'] ?? op.total_ops));
    if (d) return d;
  }
  return null;
}

function fromSorted(vals: number[]): Dist {
  const n = vals.length;
  const step = Math.max(1, Math.floor(n / 2000));
  const cdf: Array<[number, number]> = [];
  let zeros = 0;
  for (let j = 0; j < n && vals[j]! <= 0; j++) zeros++;
  for (let j = 0; j < n; j++) {
    if (j % step === 0 || j === n - 1 || (j < n - 1 && vals[j + 1] !== vals[j] && j === zeros - 1)) cdf.push([vals[j]!, (j + 1) / n]);
  }
  return { cdf: dedupe(cdf), n, zeros, min: vals[0]!, max: vals[n - 1]! };
}

function fromSummary(s: Record<string, unknown>): Dist | null {
  const n = Number(s.count ?? s.n ?? 0);
  const pts = s.cdf ?? s.points;
  const d = fromCdf(pts, n);
  if (d && typeof s.zeros === 'number') d.zeros = s.zeros;
  return d;
}

/** CDF points as [[v,p],…], [{value|v|x, fraction|p|y|cum},…] or {values:[], fractions:[]}. */
function fromCdf(pts: unknown, n: number): Dist | null {
  let cdf: Array<[number, number]> = [];
  if (Array.isArray(pts)) {
    for (const p of pts) {
      if (Array.isArray(p)) cdf.push([Number(p[0]), Number(p[1])]);
      else if (p && typeof p === 'object') {
        const o = p as Record<string, unknown>;
        const v = o.value ?? o.v ?? o.x ?? o.value_ns ?? o.ns ?? o.bytes;
        const f = o.fraction ?? o.p ?? o.y ?? o.cum ?? o.cumulative;
        cdf.push([Number(v), Number(f)]);
      }
    }
  } else if (pts && typeof pts === 'object') {
    const o = pts as Record<string, unknown>;
    const vs = (o.values ?? o.x) as number[] | undefined;
    const fs = (o.fractions ?? o.y) as number[] | undefined;
    if (Array.isArray(vs) && Array.isArray(fs)) cdf = vs.map((v, i) => [Number(v), Number(fs[i])]);
  }
  cdf = cdf.filter(([v, f]) => Number.isFinite(v) && Number.isFinite(f)).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (!cdf.length) return null;
  // Fractions may come as percentages.
  if (cdf[cdf.length - 1]![1] > 1.0001) cdf = cdf.map(([v, f]) => [v, f / 100]);
  const count = n > 0 ? n : 0;
  let zeros = 0;
  for (const [v, f] of cdf) if (v <= 0) zeros = Math.round(f * count);
  return { cdf: dedupe(cdf), n: count, zeros, min: cdf[0]![0], max: cdf[cdf.length - 1]![0] };
}

function dedupe(c: Array<[number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const p of c) {
    const last = out[out.length - 1];
    if (last && last[0] === p[0]) last[1] = Math.max(last[1], p[1]);
    else out.push([p[0], p[1]]);
  }
  return out;
}

/** Fraction of values ≤ v (step interpolation of the CDF). */
export function cdfAt(d: Dist, v: number): number {
  const c = d.cdf;
  if (v < c[0]![0]) return 0;
  let lo = 0;
  let hi = c.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (c[mid]![0] <= v) lo = mid;
    else hi = mid - 1;
  }
  return c[lo]![1];
}

export interface Bins {
  /** Bin edges: bin i is (edges[i], edges[i+1]]; a leading zero bin is [0,0] when any op has zeros. */
  edges: number[];
  zeroBin: boolean;
}

/** Log-spaced edges covering every op's positive values: 1–2–5 steps for latencies, powers of
 *  two for sizes. */
export function sharedBins(dists: Dist[], kind: Kind): Bins {
  let lo = Infinity;
  let hi = 0;
  let zeroBin = false;
  for (const d of dists) {
    if (d.zeros > 0 || d.min <= 0) zeroBin = true;
    for (const [v] of d.cdf) {
      if (v > 0 && v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  if (!(hi > 0) || !Number.isFinite(lo)) return { edges: [], zeroBin };
  const cands: number[] = [];
  if (kind === 'size') {
    for (let p = Math.max(0, Math.floor(Math.log2(lo)) - 1); p <= Math.ceil(Math.log2(hi)) + 1; p++) cands.push(Math.pow(2, p));
  } else {
    for (let p = Math.max(0, Math.floor(Math.log10(lo)) - 1); p <= Math.ceil(Math.log10(hi)) + 1; p++) {
      for (const m of [1, 2, 5]) cands.push(m * Math.pow(10, p));
    }
  }
  let i0 = 0;
  while (i0 + 1 < cands.length && cands[i0 + 1]! <= lo) i0++;
  let i1 = i0;
  while (i1 + 1 < cands.length && cands[i1]! < hi) i1++;
  const edges = cands.slice(i0, i1 + 1);
  // Too many bins for a 180px chart: merge to every other / every third edge.
  let out = edges;
  while (out.length > 25) out = out.filter((_, i) => i % 2 === 0 || i === out.length - 1);
  if (out.length === 1) out = [out[0]! / 2, out[0]!];
  return { edges: out, zeroBin };
}

/** Counts per bin for one op (zero bin first when present). */
export function binCounts(d: Dist, b: Bins): number[] {
  const out: number[] = [];
  const n = d.n || 1;
  if (b.zeroBin) out.push(Math.round(cdfAt(d, 0) * n));
  for (let i = 0; i + 1 < b.edges.length; i++) {
    const lo = i === 0 ? 0 : b.edges[i]!;
    const f = cdfAt(d, b.edges[i + 1]!) - (i === 0 ? cdfAt(d, 0) : cdfAt(d, lo));
    out.push(Math.max(0, Math.round(f * n)));
  }
  return out;
}

/** Value at fraction p (nearest-rank on the CDF). */
export function quantile(d: Dist, p: number): number {
  for (const [v, f] of d.cdf) if (f >= p) return v;
  return d.max;
}
