// Flamegraph data: the server's folded stacks (`stacks` of /api/event_flamegraph, root
// first, weighted) become a tree the renderer lays out.

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

/** The response's weighted stacks. */
export function stacksFromResponse(r: FlamegraphResponse): Stack[] {
  return r.stacks.map((s) => ({ frames: s.frames, count: s.weight }));
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
