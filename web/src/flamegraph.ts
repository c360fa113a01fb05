// Flamegraph tab drawn on a canvas by the client: click a frame to zoom,
// search box with highlight and matched share, tooltips, flame or icicle orientation,
// user/kernel stack side. Zoom and search survive refetches (the reference reset them).

import { h, replace, showTip, hideTip, spinner, errorBox } from './dom';
import { state, set, subscribe, traceRange } from './state';
import { res, MAX_FLAME_STACKS } from './data';
import { formatDurationShort, formatInt, escapeHtml } from './format';
import { stacksFromResponse, buildTree, maxDepth, pathOf, findPath, type FNode, type Side, type Stack } from './flamedata';
import { layoutFlame, paintFlame, flameAt, type Placed } from './flamecanvas';
import { callTreeView, weightUnit, weightText, WALL_FLAME, type WeightUnit } from './calltree';

export interface View {
  el: HTMLElement;
  show(): void;
  hide(): void;
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
  const invert = h('button', { class: 'link-btn', title: 'Root at the top (icicle) or at the bottom (flame)' }, 'Icicle');
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
    info,
  );
  const canvas = h('canvas', { 'data-testid': 'flame-canvas' });
  const body = h('div', { class: 'flame' });
  const hover = h('div', { class: 'flame-info' });
  const tree = callTreeView();
  const el = h('div', { class: 'card', 'data-testid': 'flame-card' }, head, body, hover, tree.el);

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

  function options(): string[] {
    const types = new Set<string>();
    const counts = res.counts.data?.counts;
    if (state.pid !== null && counts && Object.keys(counts).length) {
      for (const k of Object.keys(counts)) types.add(k);
    } else {
      for (const t of state.summary?.event_types ?? []) types.add(t);
    }
    if (state.flameType) types.add(state.flameType);
    return [...types].sort().concat(state.pid !== null && !types.has(WALL_FLAME) ? [WALL_FLAME] : []);
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
    const scope = `Scope: PID ${state.pid}`;
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
      unit = weightUnit(r.data.event_type ?? state.flameType, r.data.weight_unit, state.summary?.cpu_sample_frequency_hz ?? 0);
      tree.update(stacks, unit);
      rebuild();
      drawHead();
    }
    if (!root || root.value === 0) {
      replace(body, h('div', { class: 'muted', style: 'padding:12px' }, 'No stack samples in current scope'));
    } else {
      if (canvas.parentElement !== body) replace(body, canvas);
      draw();
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

  res.flame.on(() => {
    if (!visible) return;
    drawHead();
    drawBody();
  });
  res.counts.on(() => visible && drawHead());
  subscribe((c) => {
    if (!visible) return;
    if (c.has('flameType') || c.has('pid')) {
      if (c.has('flameType')) {
        focusPath = [];
      }
      drawHead();
    }
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
      drawHead();
      drawBody();
    },
    hide() {
      visible = false;
      hideTip();
    },
  };
}
