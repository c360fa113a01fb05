// Drawing a flame graph on a canvas: frame colours and labels, shared by the Flamegraph tab
// and the critical path's flame graph.

import type { FNode } from './flamedata';

export const ROW = 17;
export const MIN_W = 0.4;

export interface Placed {
  n: FNode;
  x: number;
  w: number;
}

/** Deterministic warm colours by name (like flamegraph.pl's "hot"); kernel frames lean
 *  orange-yellow, markers gray. */
export function frameColor(n: FNode): string {
  if (n.name === 'all') return '#d1d5db';
  if (n.name.startsWith('[') && n.name.endsWith(']')) return '#cbd5e1';
  let hsh = 0;
  for (let i = 0; i < n.name.length; i++) hsh = (hsh * 31 + n.name.charCodeAt(i)) | 0;
  const v1 = ((hsh >>> 0) % 1000) / 1000;
  const v2 = (((hsh >>> 10) >>> 0) % 1000) / 1000;
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
