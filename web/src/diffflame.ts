// The differential flame graph of the compare view (Gregg's red/blue): frames are laid out
// by NEW's weight (or BASE's, to see what went away) and coloured by the change, red for
// more in NEW, blue for less; "normalise" scales BASE to NEW's total first, so that two
// runs of different length compare by share. Hover shows base, new and delta.

import { h, replace, fitCanvas, showTip, hideTip } from './dom';
import { formatDuration, formatInt, escapeHtml } from './format';
import type { DiffFlameResponse } from './api';
import { fitText } from './flamecanvas';

const ROW = 17;
const MIN_W = 0.4;

export interface DNode {
  name: string;
  value: number;
  base: number;
  children: DNode[];
  parent: DNode | null;
  depth: number;
}

export function buildDiffTree(r: DiffFlameResponse): DNode {
  const root: DNode = { name: 'all', value: 0, base: 0, children: [], parent: null, depth: 0 };
  const index = new Map<DNode, Map<string, DNode>>();
  for (const s of r.stacks) {
    root.value += s.weight;
    root.base += s.base_weight;
    let node = root;
    for (const raw of s.frames) {
      const name = raw || '[unknown]';
      let m = index.get(node);
      if (!m) index.set(node, (m = new Map()));
      let c = m.get(name);
      if (!c) {
        c = { name, value: 0, base: 0, children: [], parent: node, depth: node.depth + 1 };
        m.set(name, c);
        node.children.push(c);
      }
      c.value += s.weight;
      c.base += s.base_weight;
      node = c;
    }
  }
  const sort = (n: DNode) => {
    n.children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const c of n.children) sort(c);
  };
  sort(root);
  return root;
}

export function formatWeight(v: number, unit: string): string {
  if (unit === 'ns') return formatDuration(v);
  return `${formatInt(Math.round(v))} ${unit}`;
}

interface Placed {
  n: DNode;
  x: number;
  w: number;
}

export interface DiffFlame {
  el: HTMLElement;
  show(r: DiffFlameResponse): void;
  /** For tests: a frame's weights summed over every node of that name, and where the
   *  widest one is drawn (CSS px in the canvas), or null. */
  frame(name: string): { base: number; value: number; x: number; y: number; w: number } | null;
}

export function diffFlameView(): DiffFlame {
  const normalise = h('input', { type: 'checkbox', 'data-testid': 'diff-normalise' });
  const widthSel = h(
    'select',
    { 'aria-label': 'Frame width', 'data-testid': 'diff-width' },
    h('option', { value: 'new' }, 'width: NEW'),
    h('option', { value: 'base' }, 'width: BASE'),
  );
  const legend = h('span', { class: 'diff-legend' },
    h('i', { style: 'background:#ef4444' }), 'more in NEW ', h('i', { style: 'background:#3b82f6' }), 'less in NEW');
  const info = h('span', { class: 'right mono', 'data-testid': 'diff-info' });
  const head = h('div', { class: 'card-head' }, h('label', null, normalise, ' normalise by totals'), widthSel, legend, info);
  const canvas = h('canvas', { 'data-testid': 'diff-canvas' });
  const body = h('div', { class: 'flame' });
  const hover = h('div', { class: 'flame-info', 'data-testid': 'diff-hover' });
  const el = h('div', null, head, body, hover);
  let resp: DiffFlameResponse | null = null;
  let root: DNode | null = null;
  let focus: DNode | null = null;
  let placed: Placed[][] = [];
  let depthMax = 0;
  let maxDelta = 1;

  const byBase = () => widthSel.value === 'base';
  const scale = () => (normalise.checked && resp && resp.base_total ? resp.total / resp.base_total : 1);
  const delta = (n: DNode) => n.value - n.base * scale();
  const width = (n: DNode) => (byBase() ? n.base * scale() : n.value);

  function colour(n: DNode): string {
    if (n === root) return '#e5e7eb';
    const d = delta(n) / maxDelta;
    const i = Math.min(1, Math.abs(d));
    const lo = Math.round(235 - 190 * i);
    if (Math.abs(d) < 0.005) return 'rgb(235,235,235)';
    return d > 0 ? `rgb(255,${lo},${lo})` : `rgb(${lo},${lo},255)`;
  }

  function layout(w: number): void {
    placed = [];
    depthMax = 0;
    if (!root || !focus || !(width(focus) > 0)) return;
    const k = w / width(focus);
    for (let a: DNode | null = focus; a; a = a.parent) (placed[a.depth] ??= []).push({ n: a, x: 0, w });
    const walk = (n: DNode, x: number) => {
      let cx = x;
      for (const c of n.children) {
        const cw = width(c) * k;
        if (cw >= MIN_W) {
          (placed[c.depth] ??= []).push({ n: c, x: cx, w: cw });
          if (c.depth > depthMax) depthMax = c.depth;
          walk(c, cx);
        }
        cx += cw;
      }
    };
    walk(focus, 0);
  }

  function draw(): void {
    if (!resp || !root) return;
    maxDelta = 0;
    const all: DNode[] = [root];
    while (all.length) {
      const n = all.pop()!;
      if (n !== root) maxDelta = Math.max(maxDelta, Math.abs(delta(n)));
      all.push(...n.children);
    }
    if (!maxDelta) maxDelta = 1;
    const w = body.clientWidth || 800;
    layout(w);
    if (!placed.length) {
      replace(body, h('div', { class: 'muted', style: 'padding:12px', 'data-testid': 'diff-empty' },
        byBase() ? 'No stacks of this type in BASE\'s window' : 'No stacks of this type in NEW\'s window'));
      return;
    }
    if (canvas.parentElement !== body) replace(body, canvas);
    const ctx = fitCanvas(canvas, w, (depthMax + 1) * ROW + 1);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (const row of placed) {
      for (const p of row ?? []) {
        const y = (depthMax - p.n.depth) * ROW;
        ctx.fillStyle = colour(p.n);
        ctx.fillRect(p.x, y, Math.max(0.5, p.w - 0.5), ROW - 1);
        if (p.w > 28) {
          ctx.fillStyle = '#1f2937';
          const label = fitText(ctx, p.n.name, p.w - 6);
          if (label) ctx.fillText(label, p.x + 3, y + ROW / 2);
        }
      }
    }
    // For tests: the frame that grew most and the one that shrank most (by delta).
    let grew: DNode | null = null;
    let shrank: DNode | null = null;
    const stack: DNode[] = [...root.children];
    while (stack.length) {
      const n = stack.pop()!;
      if (!/^\[.*\]$/.test(n.name)) {
        if (!grew || delta(n) > delta(grew)) grew = n;
        if (!shrank || delta(n) < delta(shrank)) shrank = n;
      }
      stack.push(...n.children);
    }
    canvas.dataset.grew = grew?.name ?? '';
    canvas.dataset.shrank = shrank?.name ?? '';
    canvas.dataset.frames = String(placed.reduce((s, r) => s + (r ? r.length : 0), 0));
  }

  function describe(n: DNode): string {
    const u = resp!.weight_unit;
    const b = n.base * scale();
    const d = n.value - b;
    const pct = b > 0 ? `${d >= 0 ? '+' : ''}${((d / b) * 100).toFixed(1)}%` : n.value > 0 ? 'new' : '';
    const norm = normalise.checked ? ' (BASE normalised)' : '';
    return `${n.name}: base ${formatWeight(b, u)}${norm} · new ${formatWeight(n.value, u)} · delta ${d >= 0 ? '+' : '-'}${formatWeight(Math.abs(d), u)} ${pct}`;
  }

  function hit(ev: MouseEvent): Placed | null {
    const b = canvas.getBoundingClientRect();
    const x = ev.clientX - b.left;
    const depth = depthMax - Math.floor((ev.clientY - b.top) / ROW);
    for (const p of placed[depth] ?? []) if (x >= p.x && x < p.x + p.w) return p;
    return null;
  }

  canvas.addEventListener('mousemove', (ev) => {
    const p = hit(ev);
    if (!p) {
      hideTip();
      hover.textContent = '';
      return;
    }
    hover.textContent = describe(p.n);
    showTip(ev.clientX, ev.clientY, escapeHtml(describe(p.n)).replace(': ', ':\n'));
  });
  canvas.addEventListener('mouseleave', () => {
    hideTip();
    hover.textContent = '';
  });
  canvas.addEventListener('click', (ev) => {
    const p = hit(ev);
    if (p) {
      focus = p.n;
      draw();
    }
  });
  canvas.addEventListener('dblclick', () => {
    focus = root;
    draw();
  });
  normalise.addEventListener('change', draw);
  widthSel.addEventListener('change', () => {
    focus = root;
    draw();
  });
  new ResizeObserver(() => el.isConnected && draw()).observe(body);

  return {
    el,
    frame(name: string) {
      let out: { base: number; value: number; x: number; y: number; w: number } | null = null;
      const stack: DNode[] = root ? [root] : [];
      while (stack.length) {
        const n = stack.pop()!;
        if (n.name === name) {
          out ??= { base: 0, value: 0, x: 0, y: 0, w: -1 };
          out.base += n.base;
          out.value += n.value;
        } else stack.push(...n.children);
      }
      for (const row of placed) {
        for (const p of row ?? []) {
          if (out && p.n.name === name && p.w > out.w) Object.assign(out, { x: p.x + p.w / 2, y: (depthMax - p.n.depth) * ROW + ROW / 2, w: p.w });
        }
      }
      return out;
    },
    show(r: DiffFlameResponse) {
      resp = r;
      hideTip();
      hover.textContent = '';
      root = buildDiffTree(r);
      focus = root;
      const u = r.weight_unit;
      info.textContent = `BASE ${formatWeight(r.base_total, u)} · NEW ${formatWeight(r.total, u)}`;
      draw();
    },
  };
}
