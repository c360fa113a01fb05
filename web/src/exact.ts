// Exact counts (probex.exact): where rows were dropped, the server adds the kernel's exact
// count beside the rows' figures. Counts show the exact figure with a mark; percentiles
// still rest on the rows kept, which the mark's tooltip says.

import { h } from './dom';
import { formatInt } from './format';
import type { Summary } from './api';

export const MARK = '*';

/** The mark's tooltip: how many rows back the figures. */
export function keptTitle(rows: number, exact: number): string {
  return `${formatInt(rows)} of ${formatInt(exact)} rows kept; percentiles from the rows kept`;
}

/** One line under the header when the recording lost records, else null. */
export function dropNotice(s: Summary): HTMLElement | null {
  const dropped = s.dropped_records ?? 0;
  if (!dropped) return null;
  const of = s.exact_records && s.exact_records >= dropped ? s.exact_records : 0;
  const text = of
    ? `dropped ${formatInt(dropped)} of ${formatInt(of)} records (${((100 * dropped) / of).toFixed(1)}%) — re-record with --lossless`
    : `dropped ${formatInt(dropped)} records — re-record with --lossless`;
  return h(
    'div',
    {
      class: 'drop-notice',
      'data-testid': 'drop-notice',
      title: `Counts marked ${MARK} are the kernel's exact counts; the rows behind timelines, stacks and percentiles are incomplete. --lossless pauses the traced programs instead of dropping; a larger --ringbuf-size drops fewer.`,
    },
    text,
  );
}
