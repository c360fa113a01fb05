// Drawing a flame graph on a canvas: layout under a focus frame, frame colours and labels,
// hit tests; shared by the Flamegraph tab and the critical path's flame graph.

import { fitCanvas } from './dom';
import { pythonFrameColor } from './colors';
import type { FNode } from './flamedata';

export const ROW = 17;
export const MIN_W = 0.4;

export interface Placed {
  n: FNode;
  x: number;
  w: number;
}

/** Frames under `focus` wide enough to draw, by depth; the focus's ancestors span the width. */
export function layoutFlame(focus: FNode, width: number): Placed[][] {
  const placed: Placed[][] = [];
  const push = (d: number, p: Placed) => (placed[d] ??= []).push(p);
  const scale = width / focus.value;
  for (let a: FNode | null = focus; a; a = a.parent) push(a.depth, { n: a, x: 0, w: width });
  const walk = (n: FNode, x: number) => {
    let cx = x;
    for (const c of n.children) {
      const w = c.value * scale;
      if (w >= MIN_W) {
        push(c.depth, { n: c, x: cx, w });
        walk(c, cx);
      }
      cx += w;
    }
  };
  walk(focus, 0);
  return placed;
}

function yOf(depth: number, depthMax: number, inverted: boolean): number {
  return inverted ? depth * ROW : (depthMax - depth) * ROW;
}

/** Size the canvas to the graph and draw the placed frames, search matches in magenta. */
export function paintFlame(canvas: HTMLCanvasElement, placed: Placed[][], depthMax: number, width: number, inverted: boolean, matchRe: RegExp | null): void {
  const ctx = fitCanvas(canvas, width, (depthMax + 1) * ROW + 1);
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  for (const row of placed) {
    if (!row) continue;
    for (const p of row) {
      const y = yOf(p.n.depth, depthMax, inverted);
      const hit = !!matchRe && matchRe.test(p.n.name);
      ctx.fillStyle = hit ? '#e040fb' : frameColor(p.n);
      ctx.fillRect(p.x, y, Math.max(0.5, p.w - 0.5), ROW - 1);
      if (p.w > 28) {
        ctx.fillStyle = hit ? '#fff' : '#1f2937';
        const label = fitText(ctx, p.n.name, p.w - 6);
        if (label) ctx.fillText(label, p.x + 3, y + ROW / 2);
      }
    }
  }
}

/** The placed frame under the mouse, or null. */
export function flameAt(canvas: HTMLCanvasElement, placed: Placed[][], depthMax: number, inverted: boolean, ev: MouseEvent): Placed | null {
  const b = canvas.getBoundingClientRect();
  const x = ev.clientX - b.left;
  const y = ev.clientY - b.top;
  const row = placed[inverted ? Math.floor(y / ROW) : depthMax - Math.floor(y / ROW)];
  if (!row) return null;
  for (const p of row) if (x >= p.x && x < p.x + p.w) return p;
  return null;
}

/** Deterministic warm colours by name (like flamegraph.pl's "hot"); kernel frames lean
 *  orange-yellow, Python frames green, markers gray. */
export function frameColor(n: FNode): string {
  if (n.name === 'all') return '#d1d5db';
  if (n.name.startsWith('[') && n.name.endsWith(']')) return '#cbd5e1';
  let hsh = 0;
  for (let i = 0; i < n.name.length; i++) hsh = (hsh * 31 + n.name.charCodeAt(i)) | 0;
  const v1 = ((hsh >>> 0) % 1000) / 1000;
  const v2 = (((hsh >>> 10) >>> 0) % 1000) / 1000;
  const py = n.side === 'user' ? pythonFrameColor(n.name, v1, v2) : null;
  if (py) return py;
  if (n.side === 'kernel') {
    return `rgb(${Math.round(220 + 30 * v1)},${Math.round(150 + 70 * v2)},${Math.round(40 + 40 * v1)})`;
  }
  return `rgb(${Math.round(215 + 40 * v1)},${Math.round(70 + 110 * v2)},${Math.round(40 + 30 * v2)})`;
}

const ellipsis = '…';
export function fitText(ctx: CanvasRenderingContext2D, s: string, w: number): string {
  if (ctx.measureText(s).width <= w) return s;
  const cw = ctx.measureText('m').width * 0.62;
  let n = Math.floor(w / cw);
  if (n < 3) return '';
  let t = s.slice(0, n) + ellipsis;
  while (n > 2 && ctx.measureText(t).width > w) t = s.slice(0, --n) + ellipsis;
  return n > 2 ? t : '';
}
