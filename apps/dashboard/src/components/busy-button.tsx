import type { ButtonHTMLAttributes } from 'react';

/**
 * The button of a change that takes a moment: while `busy` its label says what is happening, and it
 * is `aria-disabled` rather than disabled, so it keeps focus and stays announced (the action ignores
 * presses meanwhile). A given `aria-disabled` replaces `busy`'s, for a button also off for another
 * reason.
 */
export function BusyButton({
  busy,
  busyLabel,
  children,
  type = 'button',
  ...button
}: ButtonHTMLAttributes<HTMLButtonElement> & { busy: boolean; busyLabel: string }) {
  return (
    <button type={type} aria-disabled={busy} {...button}>
      {busy ? busyLabel : children}
    </button>
  );
}
