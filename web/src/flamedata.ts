// Flamegraph data: whatever the server sends (folded stacks, a stack list, a tree, or only
// an inferno SVG as the reference does) becomes one list of weighted stacks, root first,
// and then a tree the renderer lays out.

import type { FlamegraphResponse } from './api';

export interface Stack {
  frames: string[];
  count: number;
}

export interface FNode {
  name: string;
  value: number;
  self: number;
  children: FNode[];
  parent: FNode | null;
  depth: number;
  /** Stack side: 'user', 'kernel' or '' (markers and roots). */
  side: string;
}

export type Side = 'both' | 'user' | 'kernel';

/** Weighted stacks from any response shape we know; null when there is nothing usable. */
export function stacksFromResponse(r: FlamegraphResponse): Stack[] | null {
  const any = r as Record<string, unknown>;
  for (const key of ['stacks', 'folded', 'folded_stacks', 'samples']) {
    const v = any[key];
    const s = parseStackList(v);
    if (s) return s;
  }
  for (const key of ['tree', 'root', 'flamegraph']) {
    const v = any[key];
    if (v && typeof v === 'object' && !Array.isArray(v)) return stacksFromTree(v as TreeIn);
  }
  if (typeof r.svg === 'string' && r.svg) return stacksFromSvg(r.svg);
  return null;
}

function parseStackList(v: unknown): Stack[] | null {
  if (typeof v === 'string') return parseFoldedText(v);
  if (!Array.isArray(v)) return null;
  const out: Stack[] = [];
  for (const item of v) {
    if (typeof item === 'string') {
      const s = parseFoldedLine(item);
      if (s) out.push(s);
    } else if (Array.isArray(item) && item.length === 2) {
      const [st, n] = item as [unknown, unknown];
      const frames = Array.isArray(st) ? st.map(String) : String(st).split(';');
      out.push({ frames, count: Number(n) || 0 });
    } else if (item && typeof item === 'object') {
      const o = item as Record<string, unknown>;
      const st = o.frames ?? o.stack ?? o.stack_trace ?? o.folded;
      const n = o.count ?? o.weight ?? o.samples ?? o.value ?? 1;
      if (st === undefined) continue;
      const frames = Array.isArray(st) ? st.map(String) : String(st).split(';');
      out.push({ frames, count: Number(n) || 0 });
    }
  }
  return out;
}

function parseFoldedText(t: string): Stack[] {
  const out: Stack[] = [];
  for (const line of t.split('\n')) {
    const s = parseFoldedLine(line);
    if (s) out.push(s);
  }
  return out;
}

function parseFoldedLine(line: string): Stack | null {
  const m = /^(.*)\s+(\d+(?:\.\d+)?)\s*$/.exec(line);
  if (!m) return null;
  return { frames: m[1]!.split(';'), count: Number(m[2]) };
}

interface TreeIn {
  name?: string;
  value?: number;
  count?: number;
  children?: TreeIn[];
}

function stacksFromTree(root: TreeIn): Stack[] {
  const out: Stack[] = [];
  const walk = (n: TreeIn, path: string[], isRoot: boolean) => {
    const p = isRoot ? path : [...path, String(n.name ?? '')];
    const kids = n.children ?? [];
    let childSum = 0;
    for (const c of kids) childSum += Number(c.value ?? c.count ?? 0);
    const self = Number(n.value ?? n.count ?? 0) - childSum;
    if (self > 0 && p.length) out.push({ frames: p, count: self });
    for (const c of kids) walk(c, p, false);
  };
  const rootName = String(root.name ?? '');
  walk(root, [], rootName === '' || rootName === 'all' || rootName === 'root');
  return out;
}

/** Recover the tree from a flamegraph SVG: each frame is a <g> with a <title>
 *  "name (N samples, P%)" and a <rect>. Frame offsets and depths come from probex's
 *  data-x/data-w/data-d attributes, inferno's fg:x/fg:w, or the rect geometry. */
function stacksFromSvg(svg: string): Stack[] | null {
  let doc: Document;
  try {
    // Only the frames are read: the standalone SVG's own script and event handlers
    // (onload="init(evt)") are removed first, as the viewer's CSP forbids inline handlers.
    const inert = svg.replace(/\son[a-z]+\s*=\s*("[^"]*"|'[^']*')/gi, '');
    doc = new DOMParser().parseFromString(inert, 'image/svg+xml');
  } catch {
    return null;
  }
  interface F {
    name: string;
    x: number;
    w: number;
    d: number;
    value: number;
    kids: F[];
  }
  const frames: F[] = [];
  const ys: number[] = [];
  for (const g of Array.from(doc.getElementsByTagName('g'))) {
    const title = g.getElementsByTagName('title')[0]?.textContent;
    const rect = g.getElementsByTagName('rect')[0];
    if (!title || !rect) continue;
    const m = /^(.*) \(([\d,]+) samples?, [\d.]+%\)$/s.exec(title);
    if (!m) continue;
    const attr = (...names: string[]) => {
      for (const n of names) {
        const v = g.getAttribute(n) ?? rect.getAttribute(n);
        if (v !== null) return v;
      }
      return null;
    };
    const fx = attr('data-x', 'fg:x');
    const fw = attr('data-w', 'fg:w');
    const fd = attr('data-d');
    const y = parseFloat(rect.getAttribute('y') ?? '0');
    ys.push(y);
    frames.push({
      name: g.getAttribute('data-n') ?? m[1]!,
      x: fx !== null ? Number(fx) : parseFloat(rect.getAttribute('x') ?? '0'),
      w: fw !== null ? Number(fw) : parseFloat(rect.getAttribute('width') ?? '0'),
      d: fd !== null ? Number(fd) : NaN,
      value: Number(m[2]!.replace(/,/g, '')),
      kids: [],
    });
  }
  if (!frames.length) return null;
  // Without explicit depths, the root is at the bottom: larger y = shallower.
  if (frames.some((f) => Number.isNaN(f.d))) {
    const levels = [...new Set(ys)].sort((a, b) => b - a);
    frames.forEach((f, i) => (f.d = levels.indexOf(ys[i]!)));
  }
  const byDepth: F[][] = [];
  for (const f of frames) (byDepth[f.d] ??= []).push(f);
  for (const l of byDepth) l?.sort((a, b) => a.x - b.x);
  const eps = 1e-6;
  for (let d = 1; d < byDepth.length; d++) {
    const parents = byDepth[d - 1] ?? [];
    let pi = 0;
    for (const f of byDepth[d] ?? []) {
      while (pi < parents.length && parents[pi]!.x + parents[pi]!.w < f.x + f.w - eps) pi++;
      const p = parents[pi];
      if (p && f.x >= p.x - eps) p.kids.push(f);
    }
  }
  const out: Stack[] = [];
  const walk = (f: F, path: string[]) => {
    const p = [...path, f.name];
    const self = f.value - f.kids.reduce((s, k) => s + k.value, 0);
    if (self > 0) out.push({ frames: p, count: self });
    for (const k of f.kids) walk(k, p);
  };
  for (const root of byDepth[0] ?? []) {
    if (root.name === 'all') {
      for (const k of root.kids) walk(k, []);
    } else walk(root, []);
  }
  return out;
}

/** Keep one side of each stack: frames after the [user] marker up to [kernel], or after it. */
function sideFrames(frames: string[], side: Side): string[] {
  if (side === 'both') return frames;
  const u = frames.indexOf('[user]');
  const k = frames.indexOf('[kernel]');
  if (side === 'user') {
    if (u < 0) return k < 0 ? frames : frames.slice(0, k);
    return frames.slice(u + 1, k > u ? k : frames.length);
  }
  if (k < 0) return [];
  return frames.slice(k + 1, u > k ? u : frames.length);
}

export function buildTree(stacks: Stack[], side: Side): FNode {
  const root: FNode = { name: 'all', value: 0, self: 0, children: [], parent: null, depth: 0, side: '' };
  const index = new Map<FNode, Map<string, FNode>>();
  for (const s of stacks) {
    if (!(s.count > 0)) continue;
    const frames = sideFrames(s.frames, side);
    root.value += s.count;
    let node = root;
    let cur = '';
    for (const raw of frames) {
      const name = raw || '[unknown]';
      if (name === '[user]') cur = 'user';
      else if (name === '[kernel]') cur = 'kernel';
      let m = index.get(node);
      if (!m) index.set(node, (m = new Map()));
      let c = m.get(name);
      if (!c) {
        c = { name, value: 0, self: 0, children: [], parent: node, depth: node.depth + 1, side: name.startsWith('[') ? '' : cur || side };
        m.set(name, c);
        node.children.push(c);
      }
      c.value += s.count;
      node = c;
    }
    node.self += s.count;
  }
  const sort = (n: FNode) => {
    n.children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const c of n.children) sort(c);
  };
  sort(root);
  return root;
}

export function maxDepth(n: FNode): number {
  let d = n.depth;
  const stack = [n];
  while (stack.length) {
    const x = stack.pop()!;
    if (x.depth > d) d = x.depth;
    for (const c of x.children) stack.push(c);
  }
  return d;
}

export function pathOf(n: FNode): string[] {
  const p: string[] = [];
  for (let x: FNode | null = n; x && x.parent; x = x.parent) p.unshift(x.name);
  return p;
}

export function findPath(root: FNode, path: string[]): FNode | null {
  let n: FNode | undefined = root;
  for (const name of path) {
    n = n.children.find((c) => c.name === name);
    if (!n) return null;
  }
  return n;
}
