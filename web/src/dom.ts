// Minimal DOM helpers: the UI is plain TypeScript, no framework.

type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;
type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs | null = null,
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith('on') && typeof v === 'function') {
        el.addEventListener(k.slice(2), v as EventListener);
      } else if (k === 'class') {
        el.className = String(v);
      } else if (k === 'style') {
        el.setAttribute('style', String(v));
      } else if (v === true) {
        el.setAttribute(k, '');
      } else {
        el.setAttribute(k, String(v));
      }
    }
  }
  append(el, children);
  return el;
}

function append(el: Node, children: (Child | Child[])[]): void {
  for (const c of children) {
    if (Array.isArray(c)) append(el, c);
    else if (c === null || c === undefined || c === false) continue;
    else el.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
}

export function clear(el: Node): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

export function replace(el: Node, ...children: (Child | Child[])[]): void {
  clear(el);
  append(el, children);
}

export function spinner(text: string): HTMLElement {
  return h('div', { class: 'loading', role: 'status' }, h('span', { class: 'spin' }), text);
}

export function errorBox(text: string, retry?: () => void): HTMLElement {
  return h(
    'div',
    { class: 'error-box', role: 'alert' },
    h('span', null, text),
    retry ? h('button', { class: 'link-btn', onclick: () => retry() }, 'Retry') : null,
  );
}

/** Canvas sized to its CSS box at device-pixel resolution; returns the 2D context scaled to CSS px. */
export function fitCanvas(c: HTMLCanvasElement, cssW: number, cssH: number): CanvasRenderingContext2D {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(cssW * dpr));
  const hh = Math.max(1, Math.round(cssH * dpr));
  if (c.width !== w) c.width = w;
  if (c.height !== hh) c.height = hh;
  c.style.width = `${cssW}px`;
  c.style.height = `${cssH}px`;
  const ctx = c.getContext('2d')!;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, cssW, cssH);
  return ctx;
}

/** Floating tooltip shared by canvases (lanes, flamegraph, overview). */
let tipEl: HTMLElement | null = null;
export function showTip(x: number, y: number, html: string): void {
  if (!tipEl) {
    tipEl = h('div', { class: 'tip', role: 'tooltip' });
    document.body.appendChild(tipEl);
  }
  tipEl.innerHTML = html;
  tipEl.style.display = 'block';
  const r = tipEl.getBoundingClientRect();
  const px = Math.min(window.innerWidth - r.width - 8, x + 14);
  const py = y + 16 + r.height > window.innerHeight ? y - r.height - 10 : y + 16;
  tipEl.style.left = `${Math.max(4, px)}px`;
  tipEl.style.top = `${Math.max(4, py)}px`;
}
export function hideTip(): void {
  if (tipEl) tipEl.style.display = 'none';
}

/** Gestures that preventDefault() on mousedown keep the focus where it was; give it up so
 *  the keyboard shortcuts work after clicking the timeline. */
export function blurInputs(): void {
  const a = document.activeElement as HTMLElement | null;
  if (a && a !== document.body && /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(a.tagName)) a.blur();
}
