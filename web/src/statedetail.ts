// The selected blocked span: its details under the lanes (its syscall, the stack it blocked
// with, its waker and the waker's stack; under them, so opening them moves no lane) and the
// arrow the lanes draw from the waker's lane to the blocked thread's at the wakeup.

import { h, replace } from './dom';
import { traceRange, type Range } from './state';
import { formatOffsetPrecise } from './format';
import { formatMs, syscallText, wakerText } from './threadstates';
import type { StateSpan } from './api';
import { stateColor } from './colors';

export interface SpanSel {
  tid: number;
  span: StateSpan;
}

export let selectedSpan: SpanSel | null = null;
const listeners: Array<() => void> = [];

export function onSpanSelect(fn: () => void): void {
  listeners.push(fn);
}

const drawer = h('div', { class: 'span-detail', 'data-testid': 'span-detail', role: 'region', 'aria-label': 'Blocked span details', style: 'display:none' });
let escBound = false;

/** The details' place, which the lanes put under their rows. */
export function spanDetailEl(): HTMLElement {
  return drawer;
}

/** Select a blocked span (null: clear), show its details, tell the lanes. */
export function selectSpan(sel: SpanSel | null, nameOf: (tid: number) => string | null, reveal: (tid: number) => void): void {
  selectedSpan = sel;
  if (!sel) {
    replace(drawer);
    drawer.style.display = 'none';
  } else showDrawer(sel, nameOf, reveal);
  for (const fn of listeners) fn();
}

function showDrawer(sel: SpanSel, nameOf: (tid: number) => string | null, reveal: (tid: number) => void): void {
  const t = traceRange();
  const t0 = t ? t.start : 0;
  const sp = sel.span;
  if (!escBound) {
    escBound = true;
    // Esc closes the details first (the page's Esc then deselects the process).
    window.addEventListener(
      'keydown',
      (e) => {
        if (e.key !== 'Escape' || !selectedSpan) return;
        e.stopImmediatePropagation();
        e.preventDefault();
        selectSpan(null, nameOf, reveal);
      },
      true,
    );
  }
  const close = h('button', { class: 'link-btn', 'data-testid': 'span-detail-close', onclick: () => selectSpan(null, nameOf, reveal) }, 'Close ✕');
  const facts: Array<[string, HTMLElement | string]> = [
    ['thread', `${nameOf(sel.tid) ?? 'thread'} (TID ${sel.tid})`],
    ['when', `T+${formatOffsetPrecise(sp.start_ns - t0)} → T+${formatOffsetPrecise(sp.end_ns - t0)}`],
    ['blocked in', sp.syscall ? syscallText(sp) : 'no syscall in progress'],
  ];
  if (sp.merged && sp.merged > 1) {
    facts.push(['woken by', `${sp.merged} spans merged at this zoom: zoom in to see each one's waker`]);
  } else if (sp.waker_tid) {
    facts.push([
      'woken by',
      h(
        'span',
        null,
        `${wakerText(sp, nameOf)} at T+${formatOffsetPrecise(sp.end_ns - t0)} `,
        h('button', { class: 'link-btn', 'data-testid': 'span-detail-waker', onclick: () => reveal(sp.waker_tid!) }, 'show its lane'),
      ),
    ]);
  } else {
    facts.push(['woken by', 'no traced waker (a timer, an interrupt, or a task outside the trace)']);
  }
  replace(
    drawer,
    h(
      'div',
      { class: 'sd-head' },
      h('span', { class: 'sd-swatch', style: `background:${stateColor(String(sp.state))}` }),
      h('b', null, `${sp.state} · ${formatMs(sp.end_ns - sp.start_ns)}`),
      close,
    ),
    h('table', { class: 'sd-facts' }, facts.map(([k, v]) => h('tr', null, h('th', null, k), h('td', null, v)))),
    h(
      'div',
      { class: 'sd-stacks' },
      stackBox('Stack it blocked with', sp.stack, 'span-stack'),
      stackBox("Waker's stack at the wakeup", sp.waker_stack ?? null, 'waker-stack'),
    ),
  );
  drawer.style.display = '';
  // Below the fold, it scrolls up just enough to be seen.
  requestAnimationFrame(() => {
    if (drawer.getBoundingClientRect().top > window.innerHeight - 80) drawer.scrollIntoView({ block: 'nearest' });
  });
}

/** Frames leaf first, as a debugger shows a stack; the [user]/[kernel] marks kept dim. */
function stackBox(title: string, frames: string[] | null, testid: string): HTMLElement {
  const body =
    frames && frames.length
      ? h(
          'ol',
          { class: 'sd-frames', 'data-testid': testid },
          [...frames].reverse().map((f) => h('li', { class: /^\[.*\]$/.test(f) ? 'mark' : '' }, f || '[unknown]')),
        )
      : h('div', { class: 'muted', 'data-testid': testid }, 'no stack recorded');
  return h('div', { class: 'sd-stack' }, h('div', { class: 'dim' }, title), body);
}

const SVG = 'http://www.w3.org/2000/svg';

/** The arrow from the waker's lane (`from`) to the woken thread's (`to`) at the wakeup, in
 *  `outer`'s coordinates; none when a lane is not drawn, is out of the scrolled list
 *  (`scroller`, when the list scrolls) or the wakeup is outside the view. */
export function placeWakeArrow(svg: SVGSVGElement, outer: HTMLElement, scroller: HTMLElement | null, from: HTMLElement | undefined, to: HTMLElement | undefined, v: Range | null): void {
  const ns = selectedSpan?.span.end_ns ?? 0;
  const clear = () => {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
  };
  if (!v || !from?.isConnected || !to?.isConnected || from === to || ns < v.start || ns > v.end) return clear();
  const or = outer.getBoundingClientRect();
  const fr = from.getBoundingClientRect();
  const tr = to.getBoundingClientRect();
  const sr = scroller?.getBoundingClientRect();
  if (sr && (fr.bottom < sr.top || fr.top > sr.bottom || tr.bottom < sr.top || tr.top > sr.bottom)) return clear();
  const x = fr.left - or.left + ((ns - v.start) / (v.end - v.start)) * fr.width;
  const yTo = tr.top > fr.top ? tr.top - or.top + 1 : tr.bottom - or.top - 1;
  drawArrow(svg, x, fr.top - or.top + fr.height / 2, yTo);
}

/** An arrow from (x, yFrom) on the waker's lane to (x, yTo) on the woken thread's. */
function drawArrow(svg: SVGSVGElement, x: number, yFrom: number, yTo: number): void {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const dir = yTo > yFrom ? 1 : -1;
  const tip = yTo - dir * 2;
  const mk = (tag: string, attrs: Record<string, string | number>) => {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    svg.appendChild(e);
    return e;
  };
  mk('circle', { cx: x, cy: yFrom, r: 3.5, fill: '#111827' });
  mk('line', { x1: x, y1: yFrom, x2: x, y2: tip - dir * 6, stroke: '#111827', 'stroke-width': 1.6 });
  mk('path', { d: `M${x - 5},${tip - dir * 8} L${x + 5},${tip - dir * 8} L${x},${tip} Z`, fill: '#111827', 'data-testid': 'wake-arrow' });
}
