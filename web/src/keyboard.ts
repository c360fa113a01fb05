// Keyboard shortcuts: ←/→ pan, +/− zoom, 0 or Home resets, Esc deselects; Perfetto's
// W/S zoom at the pointer (the time under the mouse, else the centre), A/D pan.

import { state } from './state';
import { pan, zoom, resetRange } from './controls';
import { selectPid } from './tree';
import { zoomAt } from './overview';

/** Zoom at the pointer's time when the mouse is over the timeline, else at the centre. */
function zoomHere(factor: number): void {
  const r = state.range!;
  zoomAt(state.hoverNs ?? (r.start + r.end) / 2, factor, false);
}

export function startKeyboard(): void {
  window.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target as HTMLElement | null;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) return;
    if (!state.range) return;
    let handled = true;
    switch (e.key) {
      case 'ArrowLeft':
        pan(e.shiftKey ? -1 : -0.25);
        break;
      case 'ArrowRight':
        pan(e.shiftKey ? 1 : 0.25);
        break;
      case '+':
      case '=':
        zoom(0.5);
        break;
      case '-':
      case '_':
        zoom(2);
        break;
      case '0':
      case 'Home':
        resetRange();
        break;
      case 'w':
      case 'W':
        zoomHere(0.7);
        break;
      case 's':
      case 'S':
        zoomHere(1 / 0.7);
        break;
      case 'a':
      case 'A':
        pan(-0.2);
        break;
      case 'd':
      case 'D':
        pan(0.2);
        break;
      case 'Escape':
        if (state.pid !== null) selectPid(null);
        else handled = false;
        break;
      default:
        handled = false;
    }
    if (handled) e.preventDefault();
  });
}
