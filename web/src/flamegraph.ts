// Flamegraph tab drawn on a canvas by the client: click a frame to zoom,
// search box with highlight and matched share, tooltips, icicle (root on top, the
// default) or flame orientation, user/kernel stack side, scrolling inside the panel.
// Zoom and search survive refetches (the reference reset them).  The event menu lists
// the types with stacks in range, CPU and off-CPU first; a thread without CPU samples
// opens on its off-CPU time; right-click a frame for its sandwich (callers and callees).

import { h, replace, showTip, hideTip, spinner, errorBox } from './dom';
import { state, set, subscribe, traceRange } from './state';
import { res, MAX_FLAME_STACKS } from './data';
import { formatDurationShort, formatInt, escapeHtml } from './format';
import { stacksFromResponse, buildTree, maxDepth, pathOf, findPath, type FNode, type Side, type Stack } from './flamedata';
import { layoutFlame, paintFlame, flameAt, ROW, type Placed } from './flamecanvas';
import { callTreeView, weightUnit, weightText, WALL_FLAME, type WeightUnit } from './calltree';
import { sandwichView, functionsByWeight, hottestSelf } from './sandwich';
import { scopeLabel, scopeParams } from './scope';
import { getJson, type FlamegraphResponse } from './api';

export interface View {
  el: HTMLElement;
  show(): void;
  hide(): void;
}

/** Rows in range above which the event menu is not probed for stacks: the probes read
 *  every row in range once between them. */
const PROBE_MAX_ROWS = 2_000_000;

/** The drawn graph, for the tests' hook: where the widest frame called name sits. */
let drawn: { placed: Placed[][]; depthMax: number } | null = null;
export function flameFrame(name: string): { x: number; y: number; w: number } | null {
  let best: { x: number; y: number; w: number } | null = null;
  for (const row of drawn?.placed ?? []) {
    for (const p of row ?? []) {
      if (p.n.name !== name || (best && best.w >= p.w)) continue;
      const y = state.flameInverted ? p.n.depth * ROW : (drawn!.depthMax - p.n.depth) * ROW;
      best = { x: p.x, y, w: p.w };
    }
  }
  return best;
}

export function flamegraphView(): View {
  const typeSel = h('select', { 'aria-label': 'Flamegraph event type', 'data-testid': 'flame-type' });
  const sideSel = h(
    'select',
    { 'aria-label': 'Stack side', title: 'Which part of each stack to show' },
    h('option', { value: 'both' }, 'user + kernel'),
    h('option', { value: 'user' }, 'user only'),
    h('option', { value: 'kernel' }, 'kernel only'),
  );
  const search = h('input', { type: 'search', placeholder: 'Search frames (regexp)', 'data-testid': 'flame-search', style: 'width:14rem' });
  const matched = h('span', { class: 'dim mono', 'data-testid': 'flame-matched' });
  const invert = h('button', { class: 'link-btn', title: 'Root at the top (icicle) or at the bottom (flame)' }, state.flameInverted ? 'Flame' : 'Icicle');
  const viewBtn = h('button', { class: 'link-btn', 'data-testid': 'flame-view', title: 'One function\'s callers and callees, merged over its call paths' }, 'Sandwich');
  const fnInput = h('input', { type: 'search', list: 'probex-fns', placeholder: 'Function…', 'data-testid': 'sandwich-fn', style: 'width:14rem;display:none' });
  const fnList = h('datalist', { id: 'probex-fns' });
  const note = h('div', { class: 'flame-note', 'data-testid': 'flame-note', style: 'display:none' });
  const resetZoom = h('button', { class: 'link-btn', 'data-testid': 'flame-reset', style: 'display:none' }, 'Reset zoom');
  const info = h('span', { class: 'right', 'data-testid': 'flame-info' });
  const head = h(
    'div',
    { class: 'card-head' },
    h('label', null, 'Flamegraph event: '),
    typeSel,
    sideSel,
    search,
    matched,
    resetZoom,
    invert,
    viewBtn,
    fnInput,
    fnList,
    info,
  );
  const canvas = h('canvas', { 'data-testid': 'flame-canvas' });
  const body = h('div', { class: 'flame' });
  const scroll = h('div', { class: 'flame-scroll', 'data-testid': 'flame-scroll' }, body);
  const hover = h('div', { class: 'flame-info' });
  const tree = callTreeView();
  const sandwich = sandwichView();
  const graphPart = h('div', null, scroll, hover, tree.el);
  const el = h('div', { class: 'card', 'data-testid': 'flame-card' }, head, note, graphPart);

  let visible = false;
  let stacks: Stack[] | null = null;
  let stacksFor: unknown = null;
  let root: FNode | null = null;
  let focus: FNode | null = null;
  let focusPath: string[] = [];
  let side: Side = 'both';
  let placed: Placed[][] = [];
  let depthMax = 0;
  let width = 0;
  let matchRe: RegExp | null = null;
  let unit: WeightUnit = { kind: 'events', nsPerUnit: 0 };

  /** Types in range, those known to have stacks (probed) only once probed; CPU samples,
   *  off-CPU time and the wall-clock view first. */
  function options(): string[] {
    const types = new Set<string>();
    const counts = res.counts.data?.counts;
    if (counts && Object.keys(counts).length) {
      for (const k of Object.keys(counts)) if (counts[k]! > 0) types.add(k);
    } else {
      for (const t of state.summary?.event_types ?? []) types.add(t);
    }
    const probed = stackProbe.key === probeKey() ? stackProbe.has : null;
    const first = ['cpu_sample', 'off_cpu'].filter((t) => types.has(t) && (!probed || probed.has(t)));
    if (state.pid !== null) first.push(WALL_FLAME);
    const rest = [...types].filter((t) => !first.includes(t) && (!probed || probed.has(t))).sort();
    const out = [...first, ...rest];
    if (state.flameType && !out.includes(state.flameType)) out.push(state.flameType);
    return out;
  }

  // Which types have a stack in the current scope: one one-stack flamegraph per type in
  // range (cached like every request), asked for once the graph itself is drawn.
  const stackProbe: { key: string; has: Set<string> } = { key: '', has: new Set() };
  let probing = '';
  let probeTimer = 0;
  function probeKey(): string {
    const r = res.flame.range ?? state.range;
    return r ? `${r.start}:${r.end}:${JSON.stringify(scopeParams())}:${Object.keys(res.counts.data?.counts ?? {}).length}` : '';
  }
  function probeStacks(): void {
    const key = probeKey();
    const r = res.flame.range ?? state.range;
    const counts = res.counts.data?.counts;
    if (!r || !counts || key === stackProbe.key || key === probing || res.counts.status === 'loading') return;
    // Past PROBE_MAX_ROWS the menu lists every type in range.
    let rowsInRange = 0;
    for (const t in counts) rowsInRange += counts[t]!;
    if (rowsInRange > PROBE_MAX_ROWS) return;
    probing = key;
    const types = Object.keys(counts).filter((t) => counts[t]! > 0).slice(0, 80);
    const has = new Set<string>();
    let i = 0;
    const next = (): Promise<void> => {
      const t = types[i++];
      if (t === undefined || probing !== key) return Promise.resolve();
      return getJson<FlamegraphResponse>('event_flamegraph', { start_ns: r.start, end_ns: r.end, event_type: t, max_stacks: 1, ...scopeParams() })
        .then((d) => { if (d.stacks.length) has.add(t); }, () => has.add(t))
        .then(next);
    };
    void Promise.all([next(), next()]).then(() => {
      if (probing !== key) return;
      stackProbe.key = key;
      stackProbe.has = has;
      if (visible) drawHead();
    });
  }

  /** A thread with no CPU samples in range but off-CPU time opens on the latter. */
  let autoOff = false;
  function pickDefaultType(): void {
    const counts = res.counts.data?.counts;
    if (!counts || res.counts.status === 'loading') return;
    const cpu = counts.cpu_sample ?? 0;
    const off = counts.off_cpu ?? 0;
    if (state.flameType === 'cpu_sample' && !cpu && off) {
      autoOff = true;
      set({ flameType: 'off_cpu' });
    } else if (autoOff && state.flameType === 'off_cpu' && cpu) {
      autoOff = false;
      set({ flameType: 'cpu_sample' });
    }
    const shown = autoOff && state.flameType === 'off_cpu';
    note.style.display = shown ? '' : 'none';
    note.textContent = shown ? 'No CPU samples in this scope: showing where it waited (off-CPU time) instead.' : '';
  }

  function drawHead(): void {
    const opts = options();
    replace(typeSel, opts.map((t) => h('option', { value: t, selected: t === state.flameType }, t === WALL_FLAME ? 'wall-clock (on + off CPU, by time)' : t)));
    typeSel.value = state.flameType;
    const t = traceRange();
    const r = res.flame.range ?? state.range;
    const d = res.flame.data;
    let n = '';
    if (d && d.total_ns !== undefined) {
      n = `${weightText(d.total_ns, unit)} wall-clock (${weightText(d.on_cpu_ns ?? 0, unit)} on CPU)`;
    } else if (d) {
      const total = d.total_samples ?? 0;
      const inRange = d.total_in_range ?? 0;
      // The server samples max_stacks rows when the range has more.
      n =
        inRange > MAX_FLAME_STACKS
          ? `${weightText(total, unit)} from ${formatInt(MAX_FLAME_STACKS)} of ${formatInt(inRange)} events (sampled)`
          : weightText(total, unit);
      if (unit.kind === 'ns') n = `${n} off-CPU`;
    }
    const scope = scopeLabel();
    const span = t && r ? `T+${formatDurationShort(r.start - t.start)}..T+${formatDurationShort(r.end - t.start)} (width ${formatDurationShort(r.end - r.start)})` : '';
    replace(info, [n, scope, span].filter((x) => x).join(' · '), ' · Event: ', h('span', { class: 'mono' }, state.flameType || 'none'));
  }

  function drawBody(): void {
    const r = res.flame;
    if (!state.flameType) return replace(body, h('div', { class: 'muted', style: 'padding:12px' }, 'Select an event type to build a flamegraph for the current scope'));
    if (r.status === 'error') return replace(body, errorBox(`Flamegraph: ${r.error}`, () => r.retry()));
    if (!r.data) {
      return replace(body, r.status === 'loading' ? [spinner('Building flamegraph...'), h('div', { class: 'placeholder' })] : null);
    }
    if (stacksFor !== r.data) {
      stacksFor = r.data;
      stacks = stacksFromResponse(r.data);
      unit = weightUnit(r.data.event_type ?? state.flameType, r.data.weight_unit, state.summary?.cpu_sample_frequency_hz ?? 0, r.data.period_ns);
      tree.update(stacks, unit);
      drawSandwich();
      rebuild();
      drawHead();
    }
    if (!root || root.value === 0) {
      replace(body, h('div', { class: 'muted', style: 'padding:12px' }, 'No stack samples in current scope'));
    } else {
      if (canvas.parentElement !== body) replace(body, canvas);
      draw();
      // Probed once the view has settled: a burst of zooms asks nothing.
      clearTimeout(probeTimer);
      probeTimer = window.setTimeout(() => visible && probeStacks(), 600);
    }
    const old = body.querySelector('.overlay');
    if (r.status === 'loading' && root && root.value) {
      if (!old) body.appendChild(h('div', { class: 'overlay' }, spinner('Updating flamegraph...')));
    } else old?.remove();
  }

  function rebuild(): void {
    root = stacks ? buildTree(stacks, side) : null;
    focus = root && focusPath.length ? findPath(root, focusPath) ?? root : root;
    if (focus === root) focusPath = [];
    depthMax = root ? maxDepth(root) : 0;
  }

  function draw(): void {
    width = body.clientWidth || 800;
    placed = root && focus ? layoutFlame(focus, width) : [];
    paintFlame(canvas, placed, depthMax, width, state.flameInverted, matchRe);
    drawn = { placed, depthMax };
    let matchedValue = 0;
    // Matched share counts frames under the focus that were not drawn (too narrow) too.
    if (matchRe && focus) {
      const stack: FNode[] = [focus];
      while (stack.length) {
        const n = stack.pop()!;
        if (matchRe.test(n.name)) matchedValue += n.value;
        else for (const c of n.children) stack.push(c);
      }
      const pct = focus.value ? (matchedValue / focus.value) * 100 : 0;
      matched.textContent = `Matched: ${pct.toFixed(1)}% (${weightText(matchedValue, unit)})`;
    } else {
      matched.textContent = '';
    }
    resetZoom.style.display = focus && focus !== root ? '' : 'none';
    canvas.dataset.frames = String(placed.reduce((s, r) => s + (r ? r.length : 0), 0));
    // The widest real frame (tests search for it).
    let widest: Placed | null = null;
    for (const row of placed.slice(1)) for (const p of row ?? []) if (!/^\[.*\]$/.test(p.n.name) && (!widest || p.w > widest.w)) widest = p;
    canvas.dataset.widest = widest?.n.name ?? '';
    canvas.dataset.matched = String(matchedValue);
  }

  function hitTest(ev: MouseEvent): Placed | null {
    return flameAt(canvas, placed, depthMax, state.flameInverted, ev);
  }

  canvas.addEventListener('mousemove', (ev) => {
    const p = hitTest(ev);
    if (!p || !root) {
      hideTip();
      hover.textContent = '';
      return;
    }
    const n = p.n;
    const pct = (n.value / root.value) * 100;
    const fpct = focus && focus !== root ? ` · ${((n.value / focus.value) * 100).toFixed(2)}% of zoom` : '';
    const text = `${n.name} (${weightText(n.value, unit)}, ${pct.toFixed(2)}%${fpct}${n.self ? `, self ${weightText(n.self, unit)}` : ''})`;
    hover.textContent = text;
    showTip(ev.clientX, ev.clientY, `<b>${escapeHtml(n.name)}</b>\n${weightText(n.value, unit)} · ${pct.toFixed(2)}% of all${fpct}${n.self ? `\nself: ${weightText(n.self, unit)}` : ''}`);
  });
  canvas.addEventListener('mouseleave', () => {
    hideTip();
    hover.textContent = '';
  });
  canvas.addEventListener('contextmenu', (ev) => {
    const p = hitTest(ev);
    if (!p || p.n === root) return;
    ev.preventDefault();
    hideTip();
    set({ flameView: 'sandwich', sandwichFn: p.n.name });
  });
  canvas.addEventListener('click', (ev) => {
    const p = hitTest(ev);
    if (!p) return;
    focus = p.n;
    focusPath = pathOf(p.n);
    draw();
  });
  resetZoom.addEventListener('click', () => {
    focus = root;
    focusPath = [];
    draw();
  });
  typeSel.addEventListener('change', () => {
    focus = root;
    focusPath = [];
    set({ flameType: typeSel.value });
  });
  sideSel.addEventListener('change', () => {
    side = sideSel.value as Side;
    focusPath = [];
    rebuild();
    drawBody();
  });
  const applySearch = () => {
    const q = search.value.trim();
    if (!q) matchRe = null;
    else {
      try {
        matchRe = new RegExp(q, 'i');
      } catch {
        matchRe = new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
      }
    }
    if (state.flameSearch !== q) set({ flameSearch: q });
    if (root) draw();
  };
  search.addEventListener('input', applySearch);
  search.addEventListener('keydown', (e) => {
    e.stopPropagation();
    if (e.key === 'Escape') {
      search.value = '';
      applySearch();
    }
  });
  invert.addEventListener('click', () => set({ flameInverted: !state.flameInverted }));
  viewBtn.addEventListener('click', () => set({ flameView: state.flameView === 'graph' ? 'sandwich' : 'graph' }));
  fnInput.addEventListener('keydown', (e) => e.stopPropagation());
  fnInput.addEventListener('change', () => set({ sandwichFn: fnInput.value.trim() }));

  function drawSandwich(): void {
    const on = state.flameView === 'sandwich';
    viewBtn.textContent = on ? 'Flame graph' : 'Sandwich';
    fnInput.style.display = on ? '' : 'none';
    if (!on) {
      if (graphPart.parentElement !== el) el.replaceChild(graphPart, sandwich.el);
      return;
    }
    if (sandwich.el.parentElement !== el) el.replaceChild(sandwich.el, graphPart);
    const fns = stacks ? functionsByWeight(stacks) : [];
    replace(fnList, fns.slice(0, 500).map((f) => h('option', { value: f })));
    const fn = state.sandwichFn || (stacks ? hottestSelf(stacks) : '');
    if (document.activeElement !== fnInput) fnInput.value = fn;
    sandwich.update(stacks, unit, fn);
  }

  res.flame.on(() => {
    if (!visible) return;
    drawHead();
    drawBody();
  });
  res.counts.on(() => {
    if (!visible) return;
    pickDefaultType();
    drawHead();
  });
  subscribe((c) => {
    // Another scope starts from CPU samples again: it may have them.
    if (c.has('pid') && autoOff) {
      autoOff = false;
      if (state.flameType === 'off_cpu') set({ flameType: 'cpu_sample' });
    }
    if (!visible) return;
    if (c.has('flameType') || c.has('pid')) {
      if (c.has('flameType')) {
        focusPath = [];
      }
      drawHead();
    }
    if (c.has('flameView') || c.has('sandwichFn')) drawSandwich();
    if (c.has('flameInverted')) {
      invert.textContent = state.flameInverted ? 'Flame' : 'Icicle';
      if (root) draw();
    }
    if (c.has('flameSearch') && search.value.trim() !== state.flameSearch) {
      search.value = state.flameSearch;
      applySearch();
    }
  });
  new ResizeObserver(() => {
    if (visible && root && canvas.isConnected && body.clientWidth !== width) draw();
  }).observe(body);

  return {
    el,
    show() {
      visible = true;
      search.value = state.flameSearch;
      applySearch();
      pickDefaultType();
      drawHead();
      drawBody();
      drawSandwich();
    },
    hide() {
      visible = false;
      hideTip();
    },
  };
}
