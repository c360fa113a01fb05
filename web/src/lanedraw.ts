// Drawing one process lane on a canvas (lifetime, CPU usage curve, event markers) and
// finding what is under the mouse. The CPU curve is placed by the range its data was fetched
// for (no stretching after a zoom), averaged over enough samples to be meaningful, not
// capped, and both markers and CPU usage can be inspected on hover.

import type { ProcessLifetime, EventMarker } from './api';
import type { Range } from './state';
import { markerColor, CPU_AREA, CPU_LINE, FORK_COLOR, EXIT_BAD_COLOR } from './colors';
import { fitCanvas } from './dom';

export interface LaneData {
  markers: EventMarker[] | undefined;
  cpu: number[] | undefined;
  /** Range the markers and CPU buckets were computed for. */
  fetched: Range | null;
  buckets: number;
  hz: number;
}

export interface CpuBin {
  x0: number;
  x1: number;
  usage: number;
  samples: number;
  t0: number;
  t1: number;
}

/** CPU usage bins in lane pixels: buckets grouped so each bin spans ≥2 px and expects ≥3
 *  samples, placed by the fetched range. */
export function cpuBins(d: LaneData, view: Range, width: number): CpuBin[] {
  const f = d.fetched;
  const cpu = d.cpu;
  if (!f || !cpu || !cpu.length || d.buckets <= 0 || d.hz <= 0) return [];
  const B = d.buckets;
  const span = Math.max(1, f.end - f.start);
  const bs = Math.max(1, Math.ceil(span / B));
  const vw = view.end - view.start;
  if (vw <= 0) return [];
  const pxPerBucket = (bs / vw) * width;
  const expected = (d.hz * bs) / 1e9;
  const g = Math.max(1, Math.ceil(2 / Math.max(1e-9, pxPerBucket)), Math.ceil(3 / Math.max(1e-9, expected)));
  const out: CpuBin[] = [];
  for (let i = 0; i < B; i += g) {
    const j = Math.min(B, i + g);
    let n = 0;
    for (let k = i; k < j; k++) n += cpu[k] ?? 0;
    const t0 = f.start + i * bs;
    const t1 = Math.min(f.start + j * bs, f.end);
    if (t1 < view.start || t0 > view.end) continue;
    const exp = (d.hz * (t1 - t0)) / 1e9;
    out.push({
      x0: ((t0 - view.start) / vw) * width,
      x1: ((t1 - view.start) / vw) * width,
      usage: exp > 0 ? (n / exp) * 100 : 0,
      samples: n,
      t0,
      t1,
    });
  }
  return out;
}

export function drawLane(
  canvas: HTMLCanvasElement,
  width: number,
  height: number,
  p: ProcessLifetime,
  view: Range,
  d: LaneData,
  enabled: Set<string>,
): void {
  const ctx = fitCanvas(canvas, width, height);
  const vw = view.end - view.start;
  if (vw <= 0) return;
  const X = (ns: number) => ((ns - view.start) / vw) * width;

  // Lifetime bar, clipped to the view, at least 0.5% wide.
  const s = Math.max(p.start_ns, view.start);
  const e = Math.min(p.end_ns, view.end);
  if (e > s || (e === s && p.end_ns >= view.start && p.start_ns <= view.end)) {
    let x0 = X(s);
    let w = Math.max(X(e) - x0, width * 0.005);
    if (x0 + w > width) x0 = Math.max(0, width - w);
    w = Math.min(w, width);
    const bad = p.exit !== null && p.exit !== undefined && p.exit !== 0;
    ctx.fillStyle = bad ? '#fff1f2' : '#f9fafb';
    ctx.strokeStyle = bad ? '#fecdd3' : '#e5e7eb';
    ctx.lineWidth = 1;
    roundRect(ctx, x0 + 0.5, 0.5, Math.max(1, w - 1), height - 1, 3);
    ctx.fill();
    ctx.stroke();
  }

  // CPU usage area and line.
  const bins = cpuBins(d, view, width);
  if (bins.length) {
    const y = (u: number) => height - (Math.min(100, u) / 100) * (height - 1);
    ctx.beginPath();
    ctx.moveTo(bins[0]!.x0, height);
    for (const b of bins) {
      ctx.lineTo(b.x0, y(b.usage));
      ctx.lineTo(b.x1, y(b.usage));
    }
    ctx.lineTo(bins[bins.length - 1]!.x1, height);
    ctx.closePath();
    ctx.fillStyle = CPU_AREA;
    ctx.fill();
    ctx.beginPath();
    bins.forEach((b, i) => {
      if (i === 0) ctx.moveTo(b.x0, y(b.usage));
      else ctx.lineTo(b.x0, y(b.usage));
      ctx.lineTo(b.x1, y(b.usage));
    });
    ctx.strokeStyle = CPU_LINE;
    ctx.lineWidth = 0.8;
    ctx.stroke();
  }

  // Event markers, one path per colour.
  if (d.markers && d.markers.length) {
    const byColor = new Map<string, number[]>();
    for (const m of d.markers) {
      if (!enabled.has(m.event_type) || m.ts_ns < view.start || m.ts_ns > view.end) continue;
      const c = markerColor(m.event_type);
      let xs = byColor.get(c);
      if (!xs) byColor.set(c, (xs = []));
      xs.push(Math.round(X(m.ts_ns)) + 0.5);
    }
    ctx.lineWidth = 1;
    for (const c of [...byColor.keys()].sort()) {
      ctx.strokeStyle = c;
      ctx.globalAlpha = 0.75;
      ctx.beginPath();
      for (const x of byColor.get(c)!) {
        ctx.moveTo(x, 0);
        ctx.lineTo(x, height);
      }
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
  }

  // Fork and exit lines.
  ctx.lineWidth = 1.5;
  if (p.was_forked && p.start_ns >= view.start && p.start_ns <= view.end) {
    line(ctx, X(p.start_ns), height, FORK_COLOR);
  }
  if (p.exit !== null && p.exit !== undefined && p.end_ns >= view.start && p.end_ns <= view.end) {
    line(ctx, X(p.end_ns), height, p.exit === 0 ? FORK_COLOR : EXIT_BAD_COLOR);
  }
}

function line(ctx: CanvasRenderingContext2D, x: number, height: number, color: string): void {
  ctx.strokeStyle = color;
  ctx.beginPath();
  ctx.moveTo(x, 0);
  ctx.lineTo(x, height);
  ctx.stroke();
}

function roundRect(ctx: CanvasRenderingContext2D, x: number, y: number, w: number, h: number, r: number): void {
  const rr = Math.min(r, w / 2, h / 2);
  ctx.beginPath();
  ctx.moveTo(x + rr, y);
  ctx.arcTo(x + w, y, x + w, y + h, rr);
  ctx.arcTo(x + w, y + h, x, y + h, rr);
  ctx.arcTo(x, y + h, x, y, rr);
  ctx.arcTo(x, y, x + w, y, rr);
  ctx.closePath();
}

/** Markers within `px` of lane x, nearest first (only enabled, in view). */
export function markersNear(d: LaneData, view: Range, width: number, x: number, px: number, enabled: Set<string>): EventMarker[] {
  const vw = view.end - view.start;
  if (!d.markers || vw <= 0) return [];
  const t = view.start + (x / width) * vw;
  const tol = (px / width) * vw;
  const out: Array<[number, EventMarker]> = [];
  // Markers are sorted by time: binary search the window.
  const ms = d.markers;
  let lo = 0;
  let hi = ms.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ms[mid]!.ts_ns < t - tol) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < ms.length && ms[i]!.ts_ns <= t + tol; i++) {
    const m = ms[i]!;
    if (enabled.has(m.event_type) && m.ts_ns >= view.start && m.ts_ns <= view.end) out.push([Math.abs(m.ts_ns - t), m]);
  }
  out.sort((a, b) => a[0] - b[0]);
  return out.map((o) => o[1]);
}
