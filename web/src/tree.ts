// Process tree model: parent links, depth-first rows with guide flags, collapse,
// plus what the reference lacked: a name/PID filter, hiding processes outside the view, and
// selecting a PID reveals its row by expanding collapsed ancestors.

import type { ProcessLifetime } from './api';
import { state, set, processByPid } from './state';
import { cpuNsOf, wallNsOf } from './scope';

export interface Row {
  p: ProcessLifetime;
  depth: number;
  /** For each ancestor level below the root: draw a │ guide. */
  guides: boolean[];
  isLast: boolean;
  hasChildren: boolean;
  descendants: number;
  /** Matches the tree filter (highlighted). */
  hit: boolean;
}

interface Model {
  roots: ProcessLifetime[];
  children: Map<number, ProcessLifetime[]>;
  parent: Map<number, number>;
  descendants: Map<number, number>;
}

let modelFor: ProcessLifetime[] | null = null;
let model: Model = { roots: [], children: new Map(), parent: new Map(), descendants: new Map() };

export function treeModel(): Model {
  const procs = state.processes ?? [];
  if (modelFor === procs) return model;
  modelFor = procs;
  const sorted = [...procs].sort((a, b) => a.start_ns - b.start_ns || a.pid - b.pid);
  const present = new Set(sorted.map((p) => p.pid));
  const children = new Map<number, ProcessLifetime[]>();
  const parent = new Map<number, number>();
  const roots: ProcessLifetime[] = [];
  for (const p of sorted) {
    const pp = p.parent_pid;
    if (pp !== null && pp !== undefined && pp !== p.pid && present.has(pp)) {
      let list = children.get(pp);
      if (!list) children.set(pp, (list = []));
      list.push(p);
      parent.set(p.pid, pp);
    } else {
      roots.push(p);
    }
  }
  // A parent cycle would leave processes unreachable: make the earliest of each a root.
  const reach = new Set<number>();
  const stack = [...roots];
  while (stack.length) {
    const p = stack.pop()!;
    if (reach.has(p.pid)) continue;
    reach.add(p.pid);
    for (const c of children.get(p.pid) ?? []) stack.push(c);
  }
  for (const p of sorted) {
    if (!reach.has(p.pid)) {
      roots.push(p);
      parent.delete(p.pid);
      const st = [p];
      while (st.length) {
        const q = st.pop()!;
        if (reach.has(q.pid)) continue;
        reach.add(q.pid);
        for (const c of children.get(q.pid) ?? []) st.push(c);
      }
    }
  }
  roots.sort((a, b) => a.start_ns - b.start_ns || a.pid - b.pid);
  const descendants = new Map<number, number>();
  const count = (p: ProcessLifetime, seen: Set<number>): number => {
    if (seen.has(p.pid)) return 0;
    seen.add(p.pid);
    let n = 0;
    for (const c of children.get(p.pid) ?? []) n += 1 + count(c, seen);
    descendants.set(p.pid, n);
    return n;
  };
  const seen = new Set<number>();
  for (const r of roots) count(r, seen);
  model = { roots, children, parent, descendants };
  return model;
}

export function collapsibleIds(): number[] {
  const m = treeModel();
  return [...m.children.keys()];
}

export function matches(p: ProcessLifetime, q: string): boolean {
  return (
    String(p.pid).startsWith(q) ||
    (p.process_name ?? 'unknown').toLowerCase().includes(q) ||
    (Array.isArray(p.argv) && p.argv.join(' ').toLowerCase().includes(q))
  );
}

/** Siblings in the chosen order: as started (the tree), or by CPU or wall time, most first. */
function ordered(list: ProcessLifetime[]): ProcessLifetime[] {
  if (state.treeSort === 'start') return list;
  const key = state.treeSort === 'cpu' ? (p: ProcessLifetime) => cpuNsOf(p) ?? 0 : wallNsOf;
  return [...list].sort((a, b) => key(b) - key(a) || a.start_ns - b.start_ns || a.pid - b.pid);
}

/** Rows to show, depth first. */
export function visibleRows(): Row[] {
  const m = treeModel();
  const q = state.treeFilter.trim().toLowerCase();
  const r = state.range;
  const inView = (p: ProcessLifetime) => !r || (p.end_ns >= r.start && p.start_ns <= r.end);
  // With a filter or "hide outside view", keep matching rows and their ancestors.
  let keep: Set<number> | null = null;
  if (q || state.hideOutside) {
    keep = new Set();
    for (const p of state.processes ?? []) {
      if ((!q || matches(p, q)) && (!state.hideOutside || inView(p))) {
        let id: number | undefined = p.pid;
        while (id !== undefined && !keep.has(id)) {
          keep.add(id);
          id = m.parent.get(id);
        }
      }
    }
  }
  const out: Row[] = [];
  const walk = (list: ProcessLifetime[], depth: number, guides: boolean[]) => {
    const shown = ordered(keep ? list.filter((p) => keep!.has(p.pid)) : list);
    shown.forEach((p, i) => {
      const kids = m.children.get(p.pid) ?? [];
      const isLast = i === shown.length - 1;
      out.push({
        p,
        depth,
        guides,
        isLast,
        hasChildren: kids.length > 0,
        descendants: m.descendants.get(p.pid) ?? 0,
        hit: !!q && matches(p, q),
      });
      // A filter shows its matches even inside collapsed subtrees.
      if (kids.length && (q || !state.collapsed.has(p.pid))) {
        walk(kids, depth + 1, depth === 0 ? [] : [...guides, !isLast]);
      }
    });
  };
  walk(m.roots, 0, []);
  return out;
}

/** Select (or clear) a PID; expands collapsed ancestors so its row and panel are visible. */
export function selectPid(pid: number | null): void {
  if (pid === null) {
    set({ pid: null });
    return;
  }
  const m = treeModel();
  const collapsed = new Set(state.collapsed);
  let id = m.parent.get(pid);
  while (id !== undefined) {
    collapsed.delete(id);
    id = m.parent.get(id);
  }
  const patch: Parameters<typeof set>[0] = { pid, collapsed };
  // A tree filter that hides the row would hide the panel too: drop it.
  const p = processByPid(pid);
  if (p && state.treeFilter && !matches(p, state.treeFilter.trim().toLowerCase())) patch.treeFilter = '';
  set(patch);
}

export function togglePid(pid: number): void {
  selectPid(state.pid === pid ? null : pid);
}
