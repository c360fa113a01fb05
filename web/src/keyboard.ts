// Keyboard shortcuts: ←/→ pan, +/− zoom, 0 or Home resets, Esc deselects.

import { state } from './state';
import { pan, zoom, resetRange } from './controls';
import { selectPid } from './tree';

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
