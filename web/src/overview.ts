// Timeline overview strip: the full trace with its CPU activity (CPU samples per bucket,
// blue, per process on hover) and the event histogram as a second series, the selected
// window with draggable edges; a drag anywhere else selects a new range (also at full
// range), Shift+drag pans, wheel zooms at the pointer, click-to-snap and double-click
// reset. Beyond the reference: a time axis with ticks, a hover time readout, and the
// all-types outline kept visible when chips hide part of the histogram.

import { h, fitCanvas, blurInputs, showTip, hideTip } from './dom';
import { state, set, subscribe, traceRange, fullDuration, minWindow, setRange, isFullRange, type Range } from './state';
import { res } from './data';
import { OVERVIEW_FILL, CPU_FILL, CPU_STROKE } from './colors';
import { formatDuration, formatInt, escapeHtml } from './format';
import { processByPid } from './state';
import { renderAxis } from './axis';

const EDGE_PX = 10;
const MIN_VISUAL = 0.04;
const DBL_MS = 300;

export function mountOverview(parent: HTMLElement): void {
  const canvas = h('canvas');
  const dimL = h('div', { class: 'dim-l' });
  const dimR = h('div', { class: 'dim-r' });
  const hl = h('div', { class: 'handle l' }, h('i'), h('i'), h('i'));
  const hr = h('div', { class: 'handle r' }, h('i'), h('i'), h('i'));
  const win = h('div', { class: 'win' }, hl, hr);
  const hoverLine = h('div', { class: 'hover-line', style: 'display:none' });
  const hoverTime = h('div', { class: 'hover-time', style: 'display:none' });
  const strip = h('div', { class: 'overview', 'data-testid': 'overview', title: '' }, canvas, dimL, dimR, win, hoverLine, hoverTime);
  const axis = h('div', { class: 'axis' });
  parent.appendChild(h('div', { class: 'overview-wrap' }, strip, axis));

  let preview: Range | null = null;
  let dragging: 'l' | 'r' | 'pan' | 'select' | null = null;
  let lastDown = 0;

  const frac = (ns: number) => {
    const t = traceRange()!;
    const full = t.end - t.start;
    return full > 0 ? (ns - t.start) / full : 0;
  };

  /** Window as drawn: at least 4% wide, centred on the real window, so the handles stay
   *  grabbable; the real range does not change. */
  function drawnWindow(r: Range): [number, number] {
    let l = frac(r.start);
    let rr = frac(r.end);
    if (rr - l < MIN_VISUAL) {
      const c = (l + rr) / 2;
      l = Math.max(0, Math.min(1 - MIN_VISUAL, c - MIN_VISUAL / 2));
      rr = l + MIN_VISUAL;
    }
    return [l, rr];
  }

  function drawWindow(): void {
    const r = preview ?? state.range;
    if (!r) return;
    const [l, rr] = drawnWindow(r);
    dimL.style.width = `${l * 100}%`;
    dimR.style.left = `${rr * 100}%`;
    dimR.style.right = '0';
    win.style.left = `${l * 100}%`;
    win.style.width = `${(rr - l) * 100}%`;
    hl.classList.toggle('active', dragging === 'l');
    hr.classList.toggle('active', dragging === 'r');
  }

  function drawHistogram(): void {
    const w = strip.clientWidth;
    const hh = strip.clientHeight;
    const ctx = fitCanvas(canvas, w, hh);
    const d = res.overview.data;
    if (!d || !d.buckets.length) return;
    const n = d.buckets.length;
    const totals = d.buckets.map((b) => sumTypes(b.counts_by_type, null, b.count) - (b.counts_by_type.cpu_sample ?? 0));
    const shown = d.buckets.map((b) => sumTypes(b.counts_by_type, state.enabled, 0) - (state.enabled.has('cpu_sample') ? b.counts_by_type.cpu_sample ?? 0 : 0));
    const cpu = d.buckets.map((b) => b.counts_by_type.cpu_sample ?? 0);
    const maxCpu = Math.max(...cpu);
    // CPU activity first, behind the events: samples per bucket on their own scale.
    if (maxCpu > 0) {
      ctx.fillStyle = CPU_FILL;
      ctx.beginPath();
      ctx.moveTo(0, hh);
      stepPath(ctx, cpu, maxCpu, w, hh, n, false);
      ctx.lineTo(w, hh);
      ctx.closePath();
      ctx.fill();
      ctx.strokeStyle = CPU_STROKE;
      ctx.lineWidth = 1;
      ctx.beginPath();
      stepPath(ctx, cpu, maxCpu, w, hh, n, true);
      ctx.stroke();
    }
    canvas.dataset.cpuMax = String(maxCpu);
    const max = Math.max(...shown);
    const maxAll = Math.max(...totals);
    // Outline of all types, so the strip never goes blank when chips hide everything.
    if (maxAll > 0) {
      ctx.strokeStyle = 'rgba(107,114,128,0.35)';
      ctx.lineWidth = 1;
      ctx.beginPath();
      stepPath(ctx, totals, maxAll, w, hh, n, true);
      ctx.stroke();
    }
    if (max > 0) {
      ctx.fillStyle = OVERVIEW_FILL;
      ctx.beginPath();
      ctx.moveTo(0, hh);
      stepPath(ctx, shown, max, w, hh, n, false);
      ctx.lineTo(w, hh);
      ctx.closePath();
      ctx.fill();
    }
  }

  function drawAxis(): void {
    const t = traceRange();
    if (!t) return;
    renderAxis(axis, 0, t.end - t.start, strip.clientWidth);
  }

  function redraw(): void {
    drawHistogram();
    drawWindow();
    drawAxis();
  }

  // ---- mouse ----------------------------------------------------------------------
  function xToNs(clientX: number): number {
    const b = strip.getBoundingClientRect();
    const t = traceRange()!;
    const f = Math.max(0, Math.min(1, (clientX - b.left) / b.width));
    return t.start + f * (t.end - t.start);
  }

  strip.addEventListener('mousedown', (ev) => {
    if (ev.button !== 0 || !state.range) return;
    ev.preventDefault();
    blurInputs();
    const now = ev.timeStamp;
    if (now - lastDown < DBL_MS && !isFullRange()) {
      lastDown = 0;
      const t = traceRange()!;
      setRange(t.start, t.end);
      return;
    }
    lastDown = now;
    const b = strip.getBoundingClientRect();
    const x = ev.clientX - b.left;
    const [l, r] = drawnWindow(state.range);
    const lx = l * b.width;
    const rx = r * b.width;
    const full = fullDuration();
    const mw = minWindow();
    let start = state.range.start;
    let end = state.range.end;
    const t = traceRange()!;
    const onHandle = (x >= lx - EDGE_PX && x <= lx + EDGE_PX) || (x >= rx - EDGE_PX && x <= rx + EDGE_PX);
    if (ev.shiftKey && !isFullRange()) dragging = 'pan';
    else if (x >= lx - EDGE_PX && x <= lx + EDGE_PX) dragging = 'l';
    else if (x >= rx - EDGE_PX && x <= rx + EDGE_PX) dragging = 'r';
    else if (!onHandle && x > lx && x < rx) dragging = 'select';
    else if (x < lx) {
      // Click-to-snap: the nearest edge jumps to the click.
      dragging = 'l';
      start = Math.max(t.start, Math.min(end - mw, xToNs(ev.clientX)));
    } else {
      dragging = 'r';
      end = Math.min(t.end, Math.max(start + mw, xToNs(ev.clientX)));
    }
    const s0 = start;
    const e0 = end;
    const x0 = ev.clientX;
    preview = { start, end };
    hoverLine.style.display = 'none';
    hoverTime.style.display = 'none';
    drawWindow();
    const overlay = h('div', { class: 'drag-overlay', style: `cursor:${dragging === 'pan' ? 'grabbing' : 'ew-resize'}` });
    document.body.appendChild(overlay);
    // A select that never moved is a click: it keeps the range.
    if (dragging === 'select') preview = null;
    let moved = false;
    const move = (e: MouseEvent) => {
      const dns = ((e.clientX - x0) / b.width) * full;
      if (Math.abs(e.clientX - x0) >= 3) moved = true;
      if (dragging === 'select') {
        if (!moved) return;
        const a = xToNs(x0);
        const c = xToNs(e.clientX);
        const lo = Math.round(Math.min(a, c));
        preview = { start: lo, end: Math.max(lo + mw, Math.round(Math.max(a, c))) };
      } else if (dragging === 'pan') {
        const size = e0 - s0;
        const s = Math.max(t.start, Math.min(t.end - size, s0 + dns));
        preview = { start: Math.round(s), end: Math.round(s) + size };
      } else if (dragging === 'l') {
        preview = { start: Math.round(Math.max(t.start, Math.min(e0 - mw, s0 + dns))), end: e0 };
      } else {
        preview = { start: s0, end: Math.round(Math.min(t.end, Math.max(s0 + mw, e0 + dns))) };
      }
      drawWindow();
      publishPreview(preview);
    };
    const up = () => {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
      overlay.remove();
      const p = preview;
      preview = null;
      dragging = null;
      publishPreview(null);
      if (p) setRange(p.start, p.end);
      drawWindow();
    };
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
  });

  strip.addEventListener(
    'wheel',
    (ev) => {
      ev.preventDefault();
      const r = state.range;
      if (!r) return;
      zoomAt(xToNs(ev.clientX), 1 + (ev.deltaY / 100) * 0.15);
    },
    { passive: false },
  );

  strip.addEventListener('mousemove', (ev) => {
    if (dragging) return;
    const b = strip.getBoundingClientRect();
    const x = ev.clientX - b.left;
    hoverLine.style.display = 'block';
    hoverLine.style.left = `${x}px`;
    const ns = xToNs(ev.clientX);
    const t = traceRange()!;
    hoverTime.textContent = `T+${formatDuration(ns - t.start)}`;
    hoverTime.style.display = 'block';
    const tw = hoverTime.offsetWidth;
    hoverTime.style.left = `${Math.min(b.width - tw - 2, x + 4)}px`;
    set({ hoverNs: ns });
    const tip = cpuTip(ns);
    if (tip) showTip(ev.clientX, ev.clientY + 12, tip);
    else hideTip();
  });
  strip.addEventListener('mouseleave', () => {
    hoverLine.style.display = 'none';
    hoverTime.style.display = 'none';
    set({ hoverNs: null });
    hideTip();
  });

  subscribe((c) => {
    if (c.has('range')) drawWindow();
    if (c.has('enabled')) drawHistogram();
  });
  res.overview.on(drawHistogram);
  new ResizeObserver(() => redraw()).observe(strip);

  // The histogram is fetched once for the full trace, at a resolution that fits the strip.
  const t = traceRange()!;
  const buckets = Math.max(80, Math.min(400, Math.round(strip.clientWidth / 4) || 200));
  res.overview.want('histogram', { start_ns: t.start, end_ns: t.end, num_buckets: buckets }, t);
  redraw();
}

/** The overview's bucket at ns: CPU samples and events, and the processes whose threads
 *  took the samples there (from the lanes' CPU density, when fetched over that time). */
function cpuTip(ns: number): string {
  const d = res.overview.data;
  const b = d?.buckets.find((x) => ns >= x.bucket_start_ns && ns <= x.bucket_end_ns);
  if (!b) return '';
  const cpu = b.counts_by_type.cpu_sample ?? 0;
  const events = sumTypes(b.counts_by_type, null, b.count) - cpu;
  const hz = state.summary?.cpu_sample_frequency_hz ?? 0;
  const span = b.bucket_end_ns - b.bucket_start_ns;
  const cpus = hz > 0 && span > 0 ? cpu / ((hz * span) / 1e9) : 0;
  const lines = [`<b>CPU</b> ${formatInt(cpu)} samples${cpus ? ` (≈${cpus.toFixed(1)} CPUs busy)` : ''} · ${formatInt(events)} events`];
  const per = perProcessCpu(b.bucket_start_ns, b.bucket_end_ns);
  for (const [name, n] of per.slice(0, 5)) lines.push(`${escapeHtml(name)}: ${formatInt(n)} samples`);
  return lines.join('\n');
}

/** CPU samples by process (threads summed under their tgid) in [t0, t1]. */
function perProcessCpu(t0: number, t1: number): Array<[string, number]> {
  const d = res.lanes.data;
  const f = res.lanes.range;
  if (!d || !f || !d.cpu_sample_bucket_count) return [];
  const B = d.cpu_sample_bucket_count;
  const bs = Math.max(1, Math.ceil(Math.max(1, f.end - f.start) / B));
  const i0 = Math.max(0, Math.floor((t0 - f.start) / bs));
  const i1 = Math.min(B - 1, Math.floor((t1 - f.start) / bs));
  if (i1 < i0) return [];
  const by = new Map<string, number>();
  for (const [pid, arr] of Object.entries(d.cpu_sample_counts_by_pid)) {
    let n = 0;
    for (let i = i0; i <= i1; i++) n += arr[i] ?? 0;
    if (!n) continue;
    const p = processByPid(Number(pid));
    const g = p?.tgid ?? Number(pid);
    const name = `${processByPid(g)?.process_name ?? p?.process_name ?? 'unknown'} (PID ${g})`;
    by.set(name, (by.get(name) ?? 0) + n);
  }
  return [...by.entries()].sort((a, b) => b[1] - a[1]);
}

/** Zoom by `factor` keeping `cursorNs` at its fractional position; the cursor is clamped into
 *  the window first, so zooming with the cursor outside it does not make the window jump. */
export function zoomAt(cursorNs: number, factor: number, debounce = true): void {
  const r = state.range;
  const t = traceRange();
  if (!r || !t) return;
  const w = r.end - r.start;
  const full = t.end - t.start;
  const nw = Math.round(Math.max(minWindow(), Math.min(full, w * factor)));
  const c = Math.max(r.start, Math.min(r.end, cursorNs));
  const f = w > 0 ? (c - r.start) / w : 0.5;
  setRange(c - f * nw, c - f * nw + nw, debounce);
}

function sumTypes(m: Record<string, number>, only: Set<string> | null, fallback: number): number {
  let s = 0;
  let any = false;
  for (const k in m) {
    any = true;
    if (!only || only.has(k)) s += m[k]!;
  }
  return any ? s : only ? 0 : fallback;
}

function stepPath(
  ctx: CanvasRenderingContext2D,
  vals: number[],
  max: number,
  w: number,
  hh: number,
  n: number,
  moveFirst: boolean,
): void {
  for (let i = 0; i < n; i++) {
    const v = vals[i]!;
    let y = v > 0 ? Math.max(0.01, v / max) : 0;
    y = hh - y * (hh - 2);
    const x0 = (i / n) * w;
    const x1 = ((i + 1) / n) * w;
    if (i === 0 && moveFirst) ctx.moveTo(x0, y);
    else ctx.lineTo(x0, y);
    ctx.lineTo(x1, y);
  }
}

// Lanes may follow an overview drag live; they listen here.
type PreviewFn = (r: Range | null) => void;
const previewListeners: PreviewFn[] = [];
export function onPreview(fn: PreviewFn): void {
  previewListeners.push(fn);
}
function publishPreview(r: Range | null): void {
  for (const fn of previewListeners) fn(r);
}
