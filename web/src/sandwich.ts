// The sandwich view of one function, as the Firefox Profiler and speedscope have it: its
// callers (who called it, merged over every call path, the function at the root) above its
// callees (what it called, merged the same way).  Recursion counts each stack once, at
// the function's outermost frame.

import { h, replace } from './dom';
import { callTreeView, weightText, type WeightUnit } from './calltree';
import type { Stack } from './flamedata';

const MARKS = new Set(['[user]', '[kernel]']);

/** Callers (function first, then up to the roots) and callees (function down to leaves)
 *  of fn, and its total and self weight. */
export function sandwichStacks(stacks: Stack[], fn: string): { callers: Stack[]; callees: Stack[]; total: number; self: number } {
  const callers: Stack[] = [];
  const callees: Stack[] = [];
  let total = 0;
  let self = 0;
  for (const s of stacks) {
    const frames = s.frames.filter((f) => !MARKS.has(f));
    const i = frames.indexOf(fn);
    if (i < 0 || !(s.count > 0)) continue;
    total += s.count;
    if (frames.lastIndexOf(fn) === frames.length - 1) self += s.count;
    callers.push({ frames: frames.slice(0, i + 1).reverse(), count: s.count });
    callees.push({ frames: frames.slice(i), count: s.count });
  }
  return { callers, callees, total, self };
}

/** Functions by total weight, heaviest first (for the picker). */
export function functionsByWeight(stacks: Stack[]): string[] {
  const tot = new Map<string, number>();
  for (const s of stacks) {
    for (const f of new Set(s.frames)) if (!MARKS.has(f)) tot.set(f, (tot.get(f) ?? 0) + s.count);
  }
  return [...tot.entries()].sort((a, b) => b[1] - a[1]).map(([f]) => f);
}

/** The function whose own (self) weight is largest: where the time is spent. */
export function hottestSelf(stacks: Stack[]): string {
  const self = new Map<string, number>();
  for (const s of stacks) {
    const frames = s.frames.filter((f) => !MARKS.has(f));
    const leaf = frames[frames.length - 1];
    if (leaf) self.set(leaf, (self.get(leaf) ?? 0) + s.count);
  }
  let best = '';
  let bv = -1;
  for (const [f, v] of self) if (v > bv) [best, bv] = [f, v];
  return best;
}

export interface SandwichView {
  el: HTMLElement;
  update(stacks: Stack[] | null, unit: WeightUnit, fn: string): void;
}

export function sandwichView(): SandwichView {
  const title = h('div', { class: 'sw-title', 'data-testid': 'sandwich-title' });
  const callers = callTreeView('sandwich-callers');
  const callees = callTreeView('sandwich-callees');
  const el = h(
    'div',
    { class: 'sandwich', 'data-testid': 'sandwich' },
    title,
    h('div', { class: 'sw-part' }, h('div', { class: 'dim' }, 'Callers (who called it, over every call path)'), callers.el),
    h('div', { class: 'sw-part' }, h('div', { class: 'dim' }, 'Callees (what it called)'), callees.el),
  );
  return {
    el,
    update(stacks, unit, fn) {
      if (!stacks || !fn) {
        replace(title, 'Pick a function: right-click a frame, or choose one above.');
        callers.update([], unit);
        callees.update([], unit);
        return;
      }
      const s = sandwichStacks(stacks, fn);
      replace(title, h('b', { class: 'mono' }, fn), ` · total ${weightText(s.total, unit)} · self ${weightText(s.self, unit)}`);
      callers.update(s.callers, unit);
      callees.update(s.callees, unit);
    },
  };
}
