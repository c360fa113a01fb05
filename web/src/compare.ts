// Compare mode (`probex --view NEW --base BASE`): a card over the timeline comparing NEW's
// current selection (the timeline's range) with the whole of BASE or a selection in BASE
// (dragged on BASE's own timeline strip). Tabs: differential flame graph of any event type,
// latency and size CDFs of both runs overlaid per operation, the syscall table with base
// and new columns, and both process trees side by side with their wall times.

import { h, replace, spinner, errorBox, fitCanvas, hideTip } from './dom';
import { getJson, errorText, type CompareInfo, type Summary, type DiffFlameResponse, type IoStats, type MemoryStats, type OpStats, type LifetimesResponse, type ProcessLifetime, type HistogramResponse } from './api';
import { state, subscribe, type Range } from './state';
import { diffFlameView } from './diffflame';
import { ChartSet, cdfOption, type Series } from './charts';
import { opDist, type Kind } from './distrib';
import { formatDuration, formatDurationShort, formatInt } from './format';

type CTab = 'flame' | 'cdf' | 'syscalls' | 'procs';
const TABS: Array<[CTab, string]> = [
  ['flame', 'Differential flamegraph'],
  ['cdf', 'Latency / size CDFs'],
  ['syscalls', 'Syscalls'],
  ['procs', 'Processes'],
];
const MAX_STACKS = 5000;
const MAX_POINTS = 256;
const CDF_OPS = 8;

const base = (p: Record<string, unknown> = {}) => ({ ...p, trace: 'base' });

export function mountCompare(main: HTMLElement, info: CompareInfo): void {
  const tabBtns = TABS.map(([id, label]) => h('button', { 'data-ctab': id, role: 'tab', onclick: () => setTab(id) }, label));
  const typeSel = h('select', { 'aria-label': 'Event type to compare', 'data-testid': 'diff-type' });
  const newWin = h('span', { class: 'mono', 'data-testid': 'cmp-new-window' });
  const baseWin = h('span', { class: 'mono', 'data-testid': 'cmp-base-window' });
  const wholeBtn = h('button', { class: 'link-btn', 'data-testid': 'cmp-base-whole', onclick: () => setBaseRange(null) }, 'whole BASE');
  const strip = h('canvas', { class: 'cmp-strip', 'data-testid': 'cmp-base-strip', title: 'BASE timeline: drag to select a window of BASE' });
  const body = h('div', { 'data-testid': 'cmp-body' });
  const card = h(
    'div',
    { class: 'card compare', 'data-testid': 'compare-card' },
    h('div', { class: 'card-head' }, h('b', null, 'Compare'),
      h('span', { class: 'dim' }, 'NEW ', h('span', { class: 'mono' }, info.new_file), ' vs BASE ', h('span', { class: 'mono' }, info.base_file ?? ''))),
    h('div', { class: 'cmp-windows' },
      h('div', null, h('span', { class: 'cmp-tag new' }, 'NEW'), ' window: ', newWin, h('span', { class: 'dim' }, ' (the timeline selection above)')),
      h('div', null, h('span', { class: 'cmp-tag base' }, 'BASE'), ' window: ', baseWin, ' ', wholeBtn),
      strip),
    h('div', { class: 'tabs', role: 'tablist' }, tabBtns),
    body,
  );
  main.appendChild(card);

  let tab: CTab = 'flame';
  let baseSummary: Summary | null = null;
  let baseRange: Range | null = null;
  let baseHist: HistogramResponse | null = null;
  let gen = 0;
  const flame = diffFlameView();
  const charts = new ChartSet();
  // Test hooks: BASE's window and the flame graph's frames.
  (window as unknown as Record<string, unknown>).__probexCompare = {
    baseRange: () => baseRange,
    frame: (name: string) => flame.frame(name),
  };

  const newRange = (): Range => state.range ?? { start: state.summary!.min_ts_ns, end: state.summary!.max_ts_ns };
  const baseFull = (): Range => ({ start: baseSummary!.min_ts_ns, end: baseSummary!.max_ts_ns });
  const winParams = (r: Range) => ({ start_ns: r.start, end_ns: r.end });

  function setTab(t: CTab): void {
    tab = t;
    load();
  }
  function setBaseRange(r: Range | null): void {
    baseRange = r;
    drawStrip();
    load();
  }

  function drawWindows(): void {
    const n = newRange();
    const nt = state.summary!.min_ts_ns;
    newWin.textContent = `T+${formatDurationShort(n.start - nt)}..T+${formatDurationShort(n.end - nt)} (${formatDuration(n.end - n.start)})`;
    if (!baseSummary) return;
    const b = baseRange ?? baseFull();
    const bt = baseSummary.min_ts_ns;
    baseWin.textContent = baseRange
      ? `T+${formatDurationShort(b.start - bt)}..T+${formatDurationShort(b.end - bt)} (${formatDuration(b.end - b.start)})`
      : `whole trace (${formatDuration(b.end - b.start)})`;
    wholeBtn.style.display = baseRange ? '' : 'none';
  }

  // BASE's own timeline: its event histogram, the selection shaded; drag to select.
  function drawStrip(): void {
    drawWindows();
    if (!baseSummary || !baseHist) return;
    const w = strip.clientWidth || 800;
    const hh = 36;
    const ctx = fitCanvas(strip, w, hh);
    const full = baseFull();
    const span = Math.max(1, full.end - full.start);
    const max = Math.max(1, ...baseHist.buckets.map((b) => b.count));
    ctx.fillStyle = 'rgba(59,130,246,0.45)';
    for (const b of baseHist.buckets) {
      const x0 = ((b.bucket_start_ns - full.start) / span) * w;
      const x1 = ((b.bucket_end_ns - full.start) / span) * w;
      const bh = (Math.sqrt(b.count) / Math.sqrt(max)) * (hh - 4);
      ctx.fillRect(x0, hh - bh, Math.max(1, x1 - x0 - 0.5), bh);
    }
    if (baseRange) {
      const x0 = ((baseRange.start - full.start) / span) * w;
      const x1 = ((baseRange.end - full.start) / span) * w;
      ctx.fillStyle = 'rgba(107,114,128,0.25)';
      ctx.fillRect(0, 0, x0, hh);
      ctx.fillRect(x1, 0, w - x1, hh);
      ctx.strokeStyle = '#2563eb';
      ctx.strokeRect(x0 + 0.5, 0.5, Math.max(1, x1 - x0 - 1), hh - 1);
    }
  }
  let dragFrom: number | null = null;
  const nsAt = (ev: MouseEvent) => {
    const r = strip.getBoundingClientRect();
    const f = Math.min(1, Math.max(0, (ev.clientX - r.left) / Math.max(1, r.width)));
    const full = baseFull();
    return Math.round(full.start + f * (full.end - full.start));
  };
  strip.addEventListener('mousedown', (ev) => {
    if (!baseSummary) return;
    ev.preventDefault();
    dragFrom = nsAt(ev);
  });
  window.addEventListener('mouseup', (ev) => {
    if (dragFrom === null) return;
    const to = nsAt(ev);
    const from = dragFrom;
    dragFrom = null;
    if (Math.abs(to - from) < (baseFull().end - baseFull().start) / 500) return setBaseRange(null);
    setBaseRange({ start: Math.min(from, to), end: Math.max(from, to) });
  });

  function typeOptions(): void {
    const types = new Set([...(state.summary?.event_types ?? []), ...(baseSummary?.event_types ?? [])]);
    const list = [...types].sort();
    const cur = typeSel.value || (list.includes('cpu_sample') ? 'cpu_sample' : list[0] ?? '');
    replace(typeSel, list.map((t) => h('option', { value: t, selected: t === cur }, t)));
    typeSel.value = cur;
  }
  typeSel.addEventListener('change', () => load());

  async function load(): Promise<void> {
    const my = ++gen;
    for (const b of tabBtns) b.classList.toggle('on', b.dataset.ctab === tab);
    drawWindows();
    hideTip();
    charts.dispose();
    replace(body, spinner('Comparing…'));
    try {
      if (!baseSummary) {
        baseSummary = await getJson<Summary>('summary', base());
        typeOptions();
        baseHist = await getJson<HistogramResponse>('histogram', base({ ...winParams(baseFull()), num_buckets: 200 }));
        drawStrip();
      }
      const nw = winParams(newRange());
      const bw = baseRange ?? baseFull();
      if (tab === 'flame') await showFlame(my, nw, bw);
      else if (tab === 'procs') await showProcs(my);
      else await showOps(my, nw, winParams(bw));
    } catch (e) {
      if (my === gen) replace(body, errorBox(`Compare: ${errorText(e)}`, () => load()));
    }
  }

  async function showFlame(my: number, nw: Record<string, number>, bw: Range): Promise<void> {
    const r = await getJson<DiffFlameResponse>('diff_flamegraph', {
      ...nw, event_type: typeSel.value, max_stacks: MAX_STACKS, base_start_ns: bw.start, base_end_ns: bw.end,
    });
    if (my !== gen) return;
    const note = r.in_range > MAX_STACKS || r.base_in_range > MAX_STACKS
      ? h('div', { class: 'dim', style: 'font-size:11px' }, `sampled: at most ${formatInt(MAX_STACKS)} rows of each side (NEW ${formatInt(r.in_range)}, BASE ${formatInt(r.base_in_range)} rows with stacks), weights scaled up to all rows`)
      : null;
    replace(body, h('div', { class: 'card-head' }, h('label', null, 'Event: '), typeSel), flame.el, note);
    flame.show(unsampled(r));
    card.dataset.diffUnit = r.weight_unit;
  }

  async function bothOps(nw: Record<string, number>, bw: Record<string, number>): Promise<[OpStats[], OpStats[]]> {
    const q = (p: Record<string, unknown>) => ({ ...p, max_points: MAX_POINTS });
    const [ni, nm, bi, bm] = await Promise.all([
      getJson<IoStats>('io_statistics', { ...q(nw), all_syscalls: 1 }),
      getJson<MemoryStats>('memory_statistics', q(nw)),
      getJson<IoStats>('io_statistics', { ...q(base(bw)), all_syscalls: 1 }),
      getJson<MemoryStats>('memory_statistics', q(base(bw))),
    ]);
    return [[...bi.by_operation, ...bm.by_operation], [...ni.by_operation, ...nm.by_operation]];
  }

  async function showOps(my: number, nw: Record<string, number>, bw: Record<string, number>): Promise<void> {
    const [bops, nops] = await bothOps(nw, bw);
    if (my !== gen) return;
    const names = [...new Set([...nops, ...bops].map((o) => o.operation))];
    const find = (ops: OpStats[], n: string) => ops.find((o) => o.operation === n) ?? null;
    const total = (o: OpStats | null) => (o ? o.avg_latency_ns * o.total_ops : 0);
    if (tab === 'syscalls') {
      names.sort((a, b) => Math.abs(total(find(nops, b)) - total(find(bops, b))) - Math.abs(total(find(nops, a)) - total(find(bops, a))) || (a < b ? -1 : 1));
      return replace(body, syscallTable(names.map((n) => [n, find(bops, n), find(nops, n)])));
    }
    names.sort((a, b) => ((find(nops, b)?.total_ops ?? 0) + (find(bops, b)?.total_ops ?? 0)) - ((find(nops, a)?.total_ops ?? 0) + (find(bops, a)?.total_ops ?? 0)));
    const out: HTMLElement[] = [];
    if (names.length > CDF_OPS) out.push(h('div', { class: 'muted', style: 'font-size:11px' }, `the ${CDF_OPS} operations with the most calls of ${names.length}`));
    const grid = h('div', { class: 'chart-pair' });
    for (const n of names.slice(0, CDF_OPS)) {
      for (const kind of ['latency', 'size'] as Kind[]) {
        const series: Series[] = [];
        for (const [label, o] of [['BASE', find(bops, n)], ['NEW', find(nops, n)]] as const) {
          const d = o && opDist(o, kind);
          if (d && (kind === 'latency' || d.max > 0)) series.push({ name: `${n} ${label}`, dist: d });
        }
        if (!series.length) continue;
        grid.appendChild(h('div', null, h('div', { class: 'chart-title' }, `${n}: ${kind} CDF`), charts.add(cdfOption(kind, series), 170, `cmp-${kind}-cdf-${n}`)));
      }
    }
    out.push(grid);
    if (!names.length) out.push(h('div', { class: 'muted' }, 'No syscall or io_uring operations in either window'));
    replace(body, out);
  }

  async function showProcs(my: number): Promise<void> {
    const [b, n] = await Promise.all([getJson<LifetimesResponse>('process_lifetimes', base()), getJson<LifetimesResponse>('process_lifetimes')]);
    if (my !== gen) return;
    const bt = procRows(b.processes);
    const byKey = new Map(bt.map((r) => [r.key, r]));
    const nt = procRows(n.processes);
    replace(body, h('div', { class: 'cmp-trees' },
      procTable('BASE', bt, null, 'cmp-tree-base'),
      procTable('NEW', nt, byKey, 'cmp-tree-new')));
  }

  subscribe((c) => {
    if (c.has('range')) load();
  });
  new ResizeObserver(() => drawStrip()).observe(strip);
  load();
}

/** Each side's weights as estimates for all its rows: the server samples at most
 *  MAX_STACKS rows a side, so a busy side would otherwise look no bigger than that. */
function unsampled(r: DiffFlameResponse): DiffFlameResponse {
  const k = (rows: number) => (rows > MAX_STACKS ? rows / MAX_STACKS : 1);
  const kb = k(r.base_in_range);
  const kn = k(r.in_range);
  if (kb === 1 && kn === 1) return r;
  return {
    ...r,
    base_total: r.base_total * kb,
    total: r.total * kn,
    stacks: r.stacks.map((s) => ({ frames: s.frames, base_weight: s.base_weight * kb, weight: s.weight * kn })),
  };
}

function syscallTable(rows: Array<[string, OpStats | null, OpStats | null]>): HTMLElement {
  const lat = (o: OpStats | null, k: 'p50_event' | 'p95_event' | 'p99_event' | 'max_event') => {
    const v = o?.[k]?.latency_ns;
    return v === null || v === undefined ? '—' : formatDuration(v);
  };
  const total = (o: OpStats | null) => (o ? o.avg_latency_ns * o.total_ops : 0);
  const dcell = (d: number, text: string) => h('td', { class: d > 0 ? 'up' : d < 0 ? 'down' : '' }, text);
  const sign = (d: number) => (d > 0 ? '+' : d < 0 ? '-' : '±');
  return h('table', { class: 'ops cmp-ops', 'data-testid': 'cmp-syscalls' },
    h('thead', null, h('tr', null,
      ['operation', 'calls BASE', 'calls NEW', 'Δ calls', 'total BASE', 'total NEW', 'Δ total', 'p50 BASE', 'p50 NEW', 'p99 BASE', 'p99 NEW', 'max BASE', 'max NEW']
        .map((t) => h('th', null, t)))),
    h('tbody', null, rows.map(([n, b, o]) => {
      const dc = (o?.total_ops ?? 0) - (b?.total_ops ?? 0);
      const dt = total(o) - total(b);
      return h('tr', { 'data-op': n },
        h('td', null, n),
        h('td', { 'data-col': 'base-calls' }, formatInt(b?.total_ops ?? 0)),
        h('td', { 'data-col': 'new-calls' }, formatInt(o?.total_ops ?? 0)),
        dcell(dc, `${sign(dc)}${formatInt(Math.abs(dc))}`),
        h('td', null, formatDuration(total(b))),
        h('td', null, formatDuration(total(o))),
        dcell(dt, `${sign(dt)}${formatDuration(Math.abs(dt))}`),
        h('td', null, lat(b, 'p50_event')), h('td', null, lat(o, 'p50_event')),
        h('td', null, lat(b, 'p99_event')), h('td', null, lat(o, 'p99_event')),
        h('td', null, lat(b, 'max_event')), h('td', null, lat(o, 'max_event')));
    })));
}

interface PRow {
  p: ProcessLifetime;
  depth: number;
  /** Where the process sits: its names from the root, each with its rank among siblings of
   *  that name (pids differ between runs; commands and positions do not). */
  key: string;
}

function procRows(procs: ProcessLifetime[]): PRow[] {
  const sorted = [...procs].sort((a, b) => a.start_ns - b.start_ns || a.pid - b.pid);
  const present = new Set(sorted.map((p) => p.pid));
  const kids = new Map<number | null, ProcessLifetime[]>();
  for (const p of sorted) {
    const pp = p.parent_pid !== null && p.parent_pid !== p.pid && present.has(p.parent_pid) ? p.parent_pid : null;
    (kids.get(pp) ?? kids.set(pp, []).get(pp)!).push(p);
  }
  const out: PRow[] = [];
  const seen = new Set<number>();
  const walk = (parent: number | null, depth: number, prefix: string) => {
    const rank = new Map<string, number>();
    for (const p of kids.get(parent) ?? []) {
      if (seen.has(p.pid)) continue;
      seen.add(p.pid);
      const name = p.last_process_name ?? p.process_name ?? '?';
      const r = rank.get(name) ?? 0;
      rank.set(name, r + 1);
      const key = `${prefix}/${name}#${r}`;
      out.push({ p, depth, key });
      walk(p.pid, depth + 1, key);
    }
  };
  walk(null, 0, '');
  return out;
}

function procTable(label: string, rows: PRow[], base: Map<string, PRow> | null, testid: string): HTMLElement {
  const wall = (p: ProcessLifetime) => p.end_ns - p.start_ns;
  return h('div', null,
    h('div', { class: 'chart-title' }, `${label}: ${rows.length} task${rows.length === 1 ? '' : 's'}`),
    h('table', { class: 'ops', 'data-testid': testid },
      h('thead', null, h('tr', null, h('th', null, 'process'), h('th', null, 'pid'), h('th', null, 'wall'), h('th', null, 'exit'),
        base ? h('th', null, 'Δ wall vs BASE') : null)),
      h('tbody', null, rows.map((r) => {
        const b = base?.get(r.key);
        const d = b ? wall(r.p) - wall(b.p) : 0;
        return h('tr', { 'data-key': r.key },
          h('td', { style: `padding-left:${6 + r.depth * 14}px` }, r.p.last_process_name ?? r.p.process_name ?? '?'),
          h('td', null, String(r.p.pid)),
          h('td', { 'data-col': 'wall' }, formatDuration(wall(r.p))),
          h('td', null, r.p.exit === null ? '—' : String(r.p.exit)),
          base ? h('td', { class: d > 0 ? 'up' : d < 0 ? 'down' : '' }, b ? `${d >= 0 ? '+' : '-'}${formatDuration(Math.abs(d))}` : 'not in BASE') : null);
      }))));
}

