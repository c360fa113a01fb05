// Critical path of the selected thread (the panel's "Critical path" tab): fetched from
// /api/critical_path for the thread's life within the view, drawn by the lanes as a track
// under the thread (segments in their thread's colour, a state band beneath), and opened as
// a time table by thread, a flame graph and a call tree of the path's stacks (each rooted
// at its thread, blocked time ending in its state).

import { h, replace, spinner, errorBox, showTip, hideTip } from './dom';
import { getJson, isAbort, errorText, type CritSegment, type CriticalPathResponse } from './api';
import { state, set, subscribe, processByPid, traceRange, type Range } from './state';
import { formatOffsetPrecise, escapeHtml } from './format';
import { PATH_COLORS, stateColor } from './colors';
import { callTreeView, msText } from './calltree';
import { formatMs, nearestSpan } from './threadstates';
import type { View } from './flamegraph';
import { buildTree, maxDepth, type Stack, type FNode } from './flamedata';
import { layoutFlame, paintFlame, flameAt, type Placed } from './flamecanvas';

interface Path {
  tid: number;
  range: Range;
  status: 'loading' | 'ok' | 'error';
  data: CriticalPathResponse | null;
  error: string;
}

/** The path shown (the lanes draw its track while the tab is open). */
export let path: Path | null = null;
let shownFor = '';
const listeners: Array<() => void> = [];
let ctrl: AbortController | null = null;

export function onCritPath(fn: () => void): void {
  listeners.push(fn);
}
function emit(): void {
  for (const fn of listeners) fn();
}

/** The window a path is asked for: the thread's life within the view. */
function windowFor(tid: number): Range | null {
  const r = state.range;
  if (!r) return null;
  const p = processByPid(tid);
  const s = Math.max(r.start, p?.start_ns ?? r.start);
  const e = Math.min(r.end, p?.end_ns ?? r.end);
  return e > s ? { start: s, end: e } : { start: r.start, end: r.end };
}

function fetchPath(): void {
  const tid = state.pid;
  const w = tid === null ? null : windowFor(tid);
  const key = tid === null || !w ? '' : `${tid}:${w.start}:${w.end}`;
  if (key === shownFor) return;
  shownFor = key;
  ctrl?.abort();
  if (tid === null || !w) {
    path = null;
    return emit();
  }
  const c = (ctrl = new AbortController());
  path = { tid, range: w, status: 'loading', data: path?.tid === tid ? path.data : null, error: '' };
  emit();
  getJson<CriticalPathResponse>('critical_path', { tid, start_ns: w.start, end_ns: w.end }, c.signal).then(
    (d) => {
      if (c !== ctrl) return;
      path = { tid, range: w, status: 'ok', data: { ...d, segments: Array.isArray(d.segments) ? d.segments : [] }, error: '' };
      assignColors(path.data!);
      emit();
    },
    (e) => {
      if (isAbort(e) || c !== ctrl) return;
      path = { tid, range: w, status: 'error', data: null, error: errorText(e) };
      emit();
    },
  );
}

let colorOf = new Map<number, string>();
function threadColor(tid: number): string {
  return colorOf.get(tid) ?? PATH_COLORS[0]!;
}
function assignColors(d: CriticalPathResponse): void {
  colorOf = new Map();
  for (const s of d.segments) if (!colorOf.has(s.tid)) colorOf.set(s.tid, PATH_COLORS[colorOf.size % PATH_COLORS.length]!);
}

function segName(s: CritSegment): string {
  return `${s.thread_name ?? processByPid(s.tid)?.process_name ?? 'thread'} (TID ${s.tid})`;
}

/** The path's stacks, each rooted at its thread, blocked ones ending in their state. */
function pathStacks(d: CriticalPathResponse): Stack[] {
  return d.segments
    .filter((s) => s.end_ns > s.start_ns)
    .map((s) => {
      const frames = [segName(s), ...(s.stack ?? [])];
      if (s.state !== 'running') frames.push(`[${s.state}]`);
      return { frames, count: s.end_ns - s.start_ns };
    });
}

export function critPathView(): View {
  const info = h('span', { class: 'right', 'data-testid': 'critpath-info' });
  const head = h('div', { class: 'card-head' }, h('b', null, 'Critical path'), h('span', { class: 'dim' }, 'what this thread waited on, back through its wakers'), info);
  const body = h('div');
  const tree = callTreeView('critpath-tree');
  const fcanvas = h('canvas', { 'data-testid': 'critpath-flame' });
  const fbox = h('div', { class: 'flame', style: 'margin-top:8px;display:none' }, fcanvas);
  const el = h('div', { class: 'card', 'data-testid': 'critpath-card' }, head, body, fbox, tree.el);
  let visible = false;
  // The path's flame graph, root (its threads) at the top; a click zooms, the root resets.
  let froot: FNode | null = null;
  let ffocus: FNode | null = null;
  let fplaced: Placed[][] = [];
  let fdepth = 0;
  let fwidth = 0;
  let fdata: CriticalPathResponse | null = null;

  function drawFlame(): void {
    const d = path?.status === 'ok' ? path.data : null;
    if (d !== fdata) {
      fdata = d;
      froot = d ? buildTree(pathStacks(d), 'both') : null;
      ffocus = froot;
      fdepth = froot ? maxDepth(froot) : 0;
    }
    fbox.style.display = froot && froot.value ? '' : 'none';
    if (!froot || !froot.value || !ffocus) return;
    fwidth = fbox.clientWidth || 800;
    fplaced = layoutFlame(ffocus, fwidth);
    paintFlame(fcanvas, fplaced, fdepth, fwidth, true, null);
  }
  fcanvas.addEventListener('mousemove', (ev) => {
    const p = flameAt(fcanvas, fplaced, fdepth, true, ev);
    if (!p || !froot) return hideTip();
    showTip(ev.clientX, ev.clientY, `<b>${escapeHtml(p.n.name)}</b>\n${msText(p.n.value)} · ${((p.n.value / froot.value) * 100).toFixed(1)}% of the path${p.n.self ? `\nself: ${msText(p.n.self)}` : ''}`);
  });
  fcanvas.addEventListener('mouseleave', hideTip);
  fcanvas.addEventListener('click', (ev) => {
    const p = flameAt(fcanvas, fplaced, fdepth, true, ev);
    if (!p) return;
    ffocus = p.n === ffocus ? froot : p.n;
    drawFlame();
  });
  new ResizeObserver(() => {
    if (visible && froot && fbox.clientWidth !== fwidth) drawFlame();
  }).observe(fbox);

  function draw(): void {
    if (!visible) return;
    drawFlame();
    const t = traceRange();
    const p = path;
    if (!p) return replace(body, h('div', { class: 'muted', style: 'padding:12px' }, 'Select a thread'));
    const name = processByPid(p.tid)?.process_name ?? 'thread';
    info.textContent = t
      ? `${name} TID ${p.tid} · T+${formatOffsetPrecise(p.range.start - t.start)}..T+${formatOffsetPrecise(p.range.end - t.start)} (${formatMs(p.range.end - p.range.start)})`
      : '';
    if (p.status === 'error') {
      tree.update(null, { kind: 'ns', nsPerUnit: 1 });
      return replace(body, errorBox(`Critical path: ${p.error}`, () => ((shownFor = ''), fetchPath())));
    }
    if (!p.data) return replace(body, spinner('Following the wakers…'));
    const d = p.data;
    tree.update(pathStacks(d), { kind: 'ns', nsPerUnit: 1 });
    const total = d.segments.reduce((a, s) => a + Math.max(0, s.end_ns - s.start_ns), 0);
    const byThread = new Map<number, { name: string; running: number; other: number; n: number }>();
    for (const s of d.segments) {
      let b = byThread.get(s.tid);
      if (!b) byThread.set(s.tid, (b = { name: segName(s), running: 0, other: 0, n: 0 }));
      const dur = Math.max(0, s.end_ns - s.start_ns);
      if (s.state === 'running') b.running += dur;
      else b.other += dur;
      b.n++;
    }
    const rows = [...byThread.entries()].sort((a, b) => b[1].running + b[1].other - (a[1].running + a[1].other));
    replace(
      body,
      d.note ? h('div', { class: 'dim', style: 'margin-bottom:4px' }, d.note) : null,
      d.segments.length
        ? h(
            'table',
            { class: 'ops', 'data-testid': 'critpath-threads' },
            h('tr', null, h('th', null, 'Thread on the path'), h('th', null, 'Running (ms)'), h('th', null, 'Waiting (ms)'), h('th', null, 'Share'), h('th', null, 'Segments')),
            rows.map(([tid, b]) =>
              h(
                'tr',
                null,
                h('td', null, h('span', { class: 'sd-swatch', style: `background:${threadColor(tid)}` }), b.name),
                h('td', null, msText(b.running).replace(' ms', '')),
                h('td', null, msText(b.other).replace(' ms', '')),
                h('td', null, total ? `${(((b.running + b.other) / total) * 100).toFixed(1)}%` : '—'),
                h('td', null, String(b.n)),
              ),
            ),
          )
        : h('div', { class: 'muted', style: 'padding:12px' }, 'No critical path in this window'),
    );
  }

  onCritPath(draw);
  subscribe((c) => {
    if (visible && (c.has('pid') || c.has('range'))) fetchPath();
  });
  return {
    el,
    show() {
      visible = true;
      fetchPath();
      draw();
    },
    hide() {
      visible = false;
      ctrl?.abort();
      shownFor = '';
      path = null;
      emit();
    },
  };
}

// ---- the track the lanes draw under the thread ---------------------------------------------

export const TRACK_BAND = 5;

export function drawTrack(canvas: HTMLCanvasElement, width: number, height: number, view: Range): void {
  const segs = path?.data?.segments;
  const ctx = canvas.getContext('2d')!;
  const vw = view.end - view.start;
  if (!segs || vw <= 0) return;
  const X = (ns: number) => ((ns - view.start) / vw) * width;
  for (const s of segs) {
    if (s.end_ns < view.start || s.start_ns > view.end) continue;
    const x0 = Math.max(0, X(s.start_ns));
    const w = Math.max(0.6, Math.min(width, X(s.end_ns)) - x0);
    ctx.fillStyle = threadColor(s.tid);
    ctx.fillRect(x0, 0, w, height - TRACK_BAND);
    ctx.fillStyle = stateColor(s.state);
    ctx.fillRect(x0, height - TRACK_BAND, w, TRACK_BAND);
    if (w > 40) {
      ctx.fillStyle = '#fff';
      ctx.font = '10px system-ui, sans-serif';
      ctx.textBaseline = 'middle';
      const label = s.thread_name ?? String(s.tid);
      if (ctx.measureText(label).width < w - 4) ctx.fillText(label, x0 + 3, (height - TRACK_BAND) / 2);
    }
  }
}

export function segmentAt(ns: number, tolNs: number): CritSegment | null {
  const segs = path?.data?.segments;
  return segs ? nearestSpan(segs, ns, tolNs) : null;
}

export function segmentTip(s: CritSegment, traceStart: number): string {
  const lines = [
    `<span style="color:${threadColor(s.tid)}">■</span> <b>${escapeHtml(segName(s))}</b> ${escapeHtml(s.state)} ${formatMs(s.end_ns - s.start_ns)}`,
    `T+${formatOffsetPrecise(s.start_ns - traceStart)}`,
  ];
  if (s.state !== 'running' && s.state !== 'runnable') {
    lines.push(s.waker_tid ? `woken by ${escapeHtml(s.waker_name ?? 'a task')} (TID ${s.waker_tid}${s.waker_pid && s.waker_pid !== s.waker_tid ? ` · PID ${s.waker_pid}` : ''}), outside the trace` : 'no waker: a timer or an interrupt ends the chain');
  }
  const leaf = s.stack?.filter((f) => !/^\[.*\]$/.test(f)).slice(-3).reverse();
  if (leaf && leaf.length) lines.push(...leaf.map((f) => `  ${escapeHtml(f)}`));
  lines.push('<span style="opacity:.7">click: show this thread\'s lane</span>');
  return lines.join('\n');
}

/** The track's row (under its thread, row id `rowId`): hover names a segment, a click
 *  brings that segment's thread into view, ✕ closes the path. */
export function trackRow(tid: number, rowId: number, depth: number, view: () => Range | null, reveal: (tid: number) => void) {
  const canvas = h('canvas');
  const lane = h('div', { class: 'lane cp-lane', 'data-pid': String(rowId), 'data-testid': 'critpath-track' }, canvas);
  const close = h('button', { class: 'tog', title: 'Close the critical path', 'aria-label': 'Close the critical path', onclick: () => set({ tab: 'flame' }) }, '✕');
  const lbl = h(
    'div',
    { class: 'lbl', style: `padding-left:${depth * 16 + 20}px` },
    h('div', { class: 'nameblk' }, h('div', { class: 'l1' }, h('span', { class: 'name cp-name' }, '⤷ critical path')), h('div', { class: 'l2' }, `TID ${tid}`)),
    close,
  );
  const dur = h('div', { class: 'dur' });
  const el = h('div', { class: 'row cp-row', 'data-pid': String(rowId) }, lbl, lane, dur);
  const segAt = (ev: MouseEvent) => {
    const v = view();
    if (!v) return null;
    const b = lane.getBoundingClientRect();
    const ns = v.start + ((ev.clientX - b.left) / b.width) * (v.end - v.start);
    return segmentAt(ns, ((v.end - v.start) / b.width) * 2);
  };
  lane.addEventListener('mousemove', (ev) => {
    const s = segAt(ev);
    if (s) showTip(ev.clientX, ev.clientY, segmentTip(s, traceRange()!.start));
    else hideTip();
  });
  lane.addEventListener('mouseleave', hideTip);
  lane.addEventListener('click', (ev) => {
    const s = segAt(ev);
    if (s && s.tid !== path?.tid) reveal(s.tid);
  });
  return { el, lane, canvas, dur };
}
