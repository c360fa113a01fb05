// Time axis with nice ticks, shared by the overview strip and the lanes (the reference
// showed no ticks, only start and end labels).

import { h, clear } from './dom';
import { tickLabel, niceStep } from './format';

/** Fill `el` with tick labels for offsets [from, to] (ns, relative to the trace start). */
export function renderAxis(el: HTMLElement, from: number, to: number, widthPx: number): void {
  clear(el);
  const span = to - from;
  if (!(span > 0) || widthPx <= 0) return;
  const step = niceStep(span, Math.max(2, Math.floor(widthPx / 90)));
  const first = Math.ceil(from / step) * step;
  for (let v = first; v <= to + step * 1e-9; v += step) {
    const x = ((v - from) / span) * 100;
    if (x < 0 || x > 100) continue;
    const label = h('span', { class: 'tick' }, tickLabel(v, step));
    label.style.left = `${x}%`;
    if (x < 3) label.classList.add('first');
    if (x > 97) label.classList.add('last');
    el.appendChild(label);
  }
}
