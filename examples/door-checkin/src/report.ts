import type { OutcomeKind, ScanResult } from './door';

const LABELS: Record<OutcomeKind, string> = {
  admitted: 'ADMITTED',
  exited: 'EXITED',
  already_in: 'ALREADY IN',
  not_inside: 'NOT INSIDE',
  void: 'VOID',
  wrong_event: 'WRONG EVENT',
  unknown: 'UNKNOWN',
  error: 'ERROR',
};

/** Barcodes are secrets: show enough to match a ticket in hand, not enough to forge one. */
export function maskCode(code: string): string {
  const printable = code.replace(/[^\x20-\x7e]/g, '?');
  return printable.length <= 10 ? printable : `${printable.slice(0, 4)}…${printable.slice(-4)}`;
}

/** One line per scan: `  12  ALREADY IN (since …)  Ada Lovelace  [8fJ2…kQ9P]`. */
export function formatResult(result: ScanResult): string {
  let label = LABELS[result.kind];
  if (result.kind === 'already_in' && result.since) label += ` (since ${result.since})`;
  const parts = [String(result.line).padStart(4), label.padEnd(11)];
  if (result.name) parts.push(result.name);
  parts.push(`[${maskCode(result.code)}]`);
  if (result.replayed) parts.push('(recorded by an earlier run of this batch)');
  if (result.detail) parts.push(result.detail);
  return parts.join('  ');
}

export class Tally {
  private readonly counts = new Map<OutcomeKind, number>();
  scans = 0;
  replayed = 0;

  add(result: ScanResult): void {
    this.scans += 1;
    if (result.replayed) this.replayed += 1;
    this.counts.set(result.kind, this.count(result.kind) + 1);
  }

  count(kind: OutcomeKind): number {
    return this.counts.get(kind) ?? 0;
  }

  summary(direction: 'entry' | 'exit'): string {
    const shown: OutcomeKind[] =
      direction === 'entry'
        ? ['admitted', 'already_in', 'void', 'wrong_event', 'unknown', 'error']
        : ['exited', 'not_inside', 'void', 'wrong_event', 'unknown', 'error'];
    const parts = shown.map((kind) => {
      const n = this.count(kind);
      const noun = kind === 'error' ? (n === 1 ? 'error' : 'errors') : LABELS[kind].toLowerCase();
      return `${n} ${noun}`;
    });
    const replays = this.replayed > 0 ? ` (${this.replayed} replayed from an earlier run)` : '';
    return `${this.scans} ${this.scans === 1 ? 'scan' : 'scans'}: ${parts.join(', ')}${replays}`;
  }
}
