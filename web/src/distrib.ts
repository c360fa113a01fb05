// Latency and size distributions per operation, from the bounded summaries the server
// sends (`latency_cdf`/`size_cdf` points and power-of-two histograms) as a `Dist`. Histogram
// bins are logarithmic and shared by every operation of a chart, so ms-scale fsync and
// µs-scale reads both land in real bins instead of one overflow bin.

import type { HistogramBin, OpStats } from './api';

export type HistBin = HistogramBin;

export interface Dist {
  /** (value, fraction of values ≤ value), ascending in both. */
  cdf: Array<[number, number]>;
  /** Exact counts in power-of-two bins [0,1), [1,2), [2,4), … when the server sent them. */
  hist?: HistBin[];
  n: number;
  zeros: number;
  min: number;
  max: number;
}

export type Kind = 'latency' | 'size';

/** The distribution of `kind` for one operation, or null when it has no values. */
export function opDist(op: OpStats, kind: Kind): Dist | null {
  const d = fromCdf(kind === 'latency' ? op.latency_cdf : op.size_cdf, op.total_ops);
  if (!d) return null;
  d.hist = (kind === 'latency' ? op.latency_histogram : op.size_histogram).filter((b) => b.hi > b.lo);
  return d;
}

/** The server's CDF points, [[value, fraction], ...], ascending. */
function fromCdf(pts: Array<[number, number]>, n: number): Dist | null {
  if (!pts.length) return null;
  const cdf = pts.map(([v, f]): [number, number] => [v, f]);
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

/** Bins for a histogram chart: the server's power-of-two bins when every op has them (exact
 *  counts, and the same edges for all), else log bins over the CDFs. */
export interface Binned {
  /** [lo, hi) per bin; a [0, 0] bin holds zeros. */
  bins: Array<[number, number]>;
  counts: number[][];
}

export function binAll(dists: Dist[], kind: Kind): Binned {
  if (dists.length && dists.every((d) => d.hist && d.hist.length)) return pow2Bins(dists);
  const b = sharedBins(dists, kind);
  const bins: Array<[number, number]> = [];
  if (b.zeroBin) bins.push([0, 0]);
  for (let i = 0; i + 1 < b.edges.length; i++) bins.push([i === 0 ? 0 : b.edges[i]!, b.edges[i + 1]!]);
  return { bins, counts: dists.map((d) => binCounts(d, b)) };
}

function pow2Bins(dists: Dist[]): Binned {
  // Canonical bins: [0,1), [1,2), [2,4), …; index k>0 covers [2^(k-1), 2^k).
  const idx = (lo: number) => (lo <= 0 ? 0 : Math.round(Math.log2(lo)) + 1);
  let first = Infinity;
  let last = -1;
  const perOp = dists.map((d) => {
    const m = new Map<number, number>();
    for (const b of d.hist!) {
      if (b.count <= 0) continue;
      const k = idx(b.lo);
      m.set(k, (m.get(k) ?? 0) + b.count);
      first = Math.min(first, k);
      last = Math.max(last, k);
    }
    return m;
  });
  if (last < 0) return { bins: [], counts: dists.map(() => []) };
  let bins: Array<[number, number]> = [];
  for (let k = first; k <= last; k++) bins.push(k === 0 ? [0, 1] : [Math.pow(2, k - 1), Math.pow(2, k)]);
  let counts = perOp.map((m) => bins.map((_, i) => m.get(first + i) ?? 0));
  // At most ~24 bars per op: merge neighbours (the zero bin stays apart).
  while (bins.length > 24) {
    const keepZero = bins[0]![0] === 0 ? 1 : 0;
    const nb: Array<[number, number]> = bins.slice(0, keepZero);
    const nc = counts.map((c) => c.slice(0, keepZero));
    for (let i = keepZero; i < bins.length; i += 2) {
      const j = Math.min(bins.length - 1, i + 1);
      nb.push([bins[i]![0], bins[j]![1]]);
      counts.forEach((c, o) => nc[o]!.push(c[i]! + (j !== i ? c[j]! : 0)));
    }
    bins = nb;
    counts = nc;
  }
  return { bins, counts };
}
