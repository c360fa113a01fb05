// Call tree beside the flamegraph, as the Firefox Profiler has it: top-down or inverted,
// total and self in ms when the weights are time (off-CPU ns, or CPU samples × the
// sampling period), the hottest path opened. Also the one place weights become labels.

import { h, replace } from './dom';
import { formatInt } from './format';
import type { Stack } from './flamedata';

/** The flamegraph "type" that asks for /api/wall_flamegraph: the thread's on-CPU samples
 *  and off-CPU time together, by time. */
export const WALL_FLAME = 'wall-clock';

/** How a flamegraph's weights read: time in ns (off_cpu), CPU samples each worth
 *  nsPerUnit, or plain event counts. */
export interface WeightUnit {
  kind: 'ns' | 'samples' | 'events';
  /** ns per weight unit: 1 for ns, the sampling period for samples, 0 for events. */
  nsPerUnit: number;
}

export function weightUnit(eventType: string, serverUnit: string | undefined, hz: number, periodNs?: number): WeightUnit {
  // Servers before weight_unit already weighed off_cpu by ns.
  if (serverUnit === 'ns' || (serverUnit === undefined && eventType === 'off_cpu')) return { kind: 'ns', nsPerUnit: 1 };
  // The server's sampling period when it sends one, else the trace's nominal rate.
  if (eventType === 'cpu_sample' && periodNs && periodNs > 0) return { kind: 'samples', nsPerUnit: periodNs };
  if (eventType === 'cpu_sample' && hz > 0) return { kind: 'samples', nsPerUnit: 1e9 / hz };
  return { kind: 'events', nsPerUnit: 0 };
}

/** 1,234.5 ms: the call tree's and flamegraph's time unit. */
export function msText(ns: number): string {
  const ms = ns / 1e6;
  const d = ms >= 100 ? 0 : ms >= 10 ? 1 : ms >= 1 ? 2 : 3;
  const [i, f] = ms.toFixed(d).split('.');
  return `${formatInt(Number(i))}${f ? `.${f}` : ''} ms`;
}

/** A weight as the user reads it: "668.2 ms", "120 samples (120.0 ms)", "42 events". */
export function weightText(v: number, u: WeightUnit): string {
  if (u.kind === 'ns') return msText(v);
  if (u.kind === 'samples') return `${formatInt(v)} sample${v === 1 ? '' : 's'} (${msText(v * u.nsPerUnit)})`;
  return `${formatInt(v)} samples`;
}

interface CNode {
  name: string;
  total: number;
  self: number;
  children: Map<string, CNode>;
  depth: number;
  id: string;
}

const MARKS = new Set(['[user]', '[kernel]']);
const MAX_ROWS = 3000;

function build(stacks: Stack[], inverted: boolean): CNode {
  const root: CNode = { name: '', total: 0, self: 0, children: new Map(), depth: -1, id: '' };
  for (const s of stacks) {
    if (!(s.count > 0)) continue;
    const frames = s.frames.filter((f) => !MARKS.has(f)).map((f) => f || '[unknown]');
    if (inverted) frames.reverse();
    root.total += s.count;
    let n = root;
    for (const f of frames) {
      let c = n.children.get(f);
      if (!c) n.children.set(f, (c = { name: f, total: 0, self: 0, children: new Map(), depth: n.depth + 1, id: `${n.id}\u0001${f}` }));
      c.total += s.count;
      n = c;
    }
    // Self time belongs to the leaf; inverted, the leaf is the root row.
    if (inverted) {
      if (frames.length) root.children.get(frames[0]!)!.self += s.count;
    } else if (n !== root) n.self += s.count;
  }
  return root;
}

export interface CallTree {
  el: HTMLElement;
  update(stacks: Stack[] | null, unit: WeightUnit): void;
}

export function callTreeView(testid = 'calltree'): CallTree {
  const invert = h('input', { type: 'checkbox', 'data-testid': `${testid}-invert` });
  const note = h('span', { class: 'dim', style: 'font-size:11px' });
  const head = h('div', { class: 'ct-head' }, h('b', null, 'Call tree'), h('label', { class: 'dim' }, invert, ' inverted (leaf functions first)'), note);
  const thead = h('thead');
  const tbody = h('tbody');
  const table = h('table', { class: 'ct', 'data-testid': testid }, thead, tbody);
  const el = h('div', { class: 'ct-wrap' }, head, h('div', { class: 'ct-scroll' }, table));
  let stacks: Stack[] | null = null;
  let unit: WeightUnit = { kind: 'events', nsPerUnit: 0 };
  let root: CNode | null = null;
  let open = new Set<string>();

  const val = (v: number) => (unit.kind === 'events' ? formatInt(v) : msText(v * unit.nsPerUnit).replace(' ms', ''));

  function rebuild(): void {
    root = stacks ? build(stacks, invert.checked) : null;
    open = new Set();
    // Open the hottest path, as the Firefox Profiler does.
    let n = root;
    while (n && n.children.size) {
      open.add(n.id);
      let best: CNode | null = null;
      for (const c of n.children.values()) if (!best || c.total > best.total) best = c;
      if (!best || best.total < n.total * 0.05 || best.depth > 60) break;
      n = best;
    }
    render();
  }

  function render(): void {
    const u = unit.kind === 'events' ? 'events' : 'ms';
    const samples = unit.kind === 'samples';
    replace(thead, h('tr', null, h('th', null, `Total (${u})`), h('th', null, `Self (${u})`), samples ? h('th', null, 'Samples') : null, h('th', null, '%'), h('th', { class: 'fn' }, 'Function')));
    const rows: HTMLElement[] = [];
    if (!root || !root.total) {
      replace(tbody, h('tr', null, h('td', { colspan: 5, class: 'muted' }, 'No stacks in the current scope')));
      return;
    }
    const all = root.total;
    const walk = (n: CNode) => {
      const kids = [...n.children.values()].sort((a, b) => b.total - a.total || (a.name < b.name ? -1 : 1));
      for (const c of kids) {
        if (rows.length >= MAX_ROWS) return;
        const has = c.children.size > 0;
        const isOpen = open.has(c.id);
        const tog = h('span', { class: 'ct-tog' }, has ? (isOpen ? '▼' : '▶') : '');
        const tr = h(
          'tr',
          { 'data-id': c.id, class: has ? 'ct-node' : '' },
          h('td', null, val(c.total)),
          h('td', null, c.self ? val(c.self) : '—'),
          samples ? h('td', { class: 'muted' }, formatInt(c.total)) : null,
          h('td', null, `${((c.total / all) * 100).toFixed(1)}%`),
          h('td', { class: 'fn', style: `padding-left:${6 + c.depth * 14}px`, title: c.name }, tog, c.name),
        );
        if (has) {
          tr.addEventListener('click', () => {
            if (open.has(c.id)) open.delete(c.id);
            else open.add(c.id);
            render();
          });
        }
        rows.push(tr);
        if (has && isOpen) walk(c);
      }
    };
    walk(root);
    replace(tbody, rows);
    note.textContent = [
      unit.kind === 'samples' ? `time = samples × ${msText(unit.nsPerUnit)} sampling period` : '',
      rows.length >= MAX_ROWS ? `first ${formatInt(MAX_ROWS)} rows` : '',
    ].filter((x) => x).join(' · ');
  }

  invert.addEventListener('change', rebuild);
  return {
    el,
    update(s, u) {
      if (s === stacks && u.kind === unit.kind && u.nsPerUnit === unit.nsPerUnit) return;
      stacks = s;
      unit = u;
      rebuild();
    },
  };
}
