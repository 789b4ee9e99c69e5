import type {
  DoorAdmission,
  DoorAttendee,
  DoorConflict,
  ScanOutcome,
  ScanResult,
} from '@boxoffice/sdk/doors';

const LABELS: Record<ScanResult, string> = {
  admitted: 'ADMITTED',
  exited: 'EXITED',
  already_in: 'ALREADY IN',
  not_inside: 'NOT INSIDE',
  void: 'VOID',
  wrong_event: 'WRONG EVENT',
  unknown: 'UNKNOWN',
};

/** Barcodes are secrets: show enough to match a ticket in hand, not enough to forge one. */
export function maskCode(code: string): string {
  const printable = code.replace(/[^\x20-\x7e]/g, '?');
  return printable.length <= 10 ? printable : `${printable.slice(0, 4)}…${printable.slice(-4)}`;
}

/** `Ada Lovelace (Analytical Engines)`. */
export function personOf(attendee: DoorAttendee | undefined): string | undefined {
  if (!attendee) return undefined;
  const name = `${attendee.first_name} ${attendee.last_name}`.trim();
  return attendee.company ? `${name} (${attendee.company})` : name;
}

/** `since 2026-…Z at North, north-1`: as much as the door knows of an admission. */
export function describeAdmission(admission: DoorAdmission | undefined): string | undefined {
  if (!admission) return undefined;
  const where = [admission.gate, admission.device_id].filter((part) => part !== null).join(', ');
  return `since ${admission.scanned_at}${where ? ` at ${where}` : ''}`;
}

/** One line per scan: `  12  ALREADY IN (since … at North, north-1)  Ada Lovelace  [8fJ2…kQ9P]`. */
export function formatScan(line: number, outcome: ScanOutcome): string {
  let label = LABELS[outcome.result];
  const since = describeAdmission(outcome.admission);
  if (outcome.result === 'already_in' && since) label += ` (${since})`;
  const parts = [String(line).padStart(4), label.padEnd(11)];
  const person = personOf(outcome.attendee);
  if (person) parts.push(person);
  parts.push(`[${maskCode(outcome.code)}]`);
  return parts.join('  ');
}

/** What the server said of a scan the door had let through. */
function refusal(conflict: DoorConflict): string {
  const { result } = conflict;
  switch (result.code) {
    case 'already_checked_in':
      return `was already in, ${describeAdmission(result.admission ?? undefined) ?? 'by another scan'}`;
    case 'ticket_void':
      return 'is void (its order was cancelled or refunded)';
    case 'not_checked_in':
      return 'was not inside';
    case 'wrong_event':
      return 'is a ticket of another event';
  }
  return result.status === 404
    ? 'is no ticket at all'
    : `was refused (${result.status} ${result.code ?? ''})`;
}

/**
 * A scan the door had accepted and the server refused, for the person at the door:
 * `   !  CONFLICT     Ada Lovelace  [8fJ2…kQ9P]  (line 12) was already in, since … at South, s-2`.
 */
export function formatConflict(conflict: DoorConflict, line: number | undefined): string {
  const parts = ['   !', 'CONFLICT'.padEnd(11)];
  const person = personOf(conflict.attendee);
  if (person) parts.push(person);
  parts.push(`[${maskCode(conflict.scan.code)}]`);
  const where = line === undefined ? 'an earlier run’s scan' : `(line ${line})`;
  parts.push(`${where} ${refusal(conflict)}`);
  return parts.join('  ');
}

export class Tally {
  private readonly counts = new Map<ScanResult, number>();
  scans = 0;
  conflicts = 0;

  add(result: ScanResult): void {
    this.scans += 1;
    this.counts.set(result, this.count(result) + 1);
  }

  count(result: ScanResult): number {
    return this.counts.get(result) ?? 0;
  }

  summary(direction: 'entry' | 'exit'): string {
    const shown: ScanResult[] =
      direction === 'entry'
        ? ['admitted', 'already_in', 'void', 'wrong_event', 'unknown']
        : ['exited', 'not_inside', 'void', 'wrong_event', 'unknown'];
    const parts = shown.map((result) => `${this.count(result)} ${LABELS[result].toLowerCase()}`);
    const conflicts =
      this.conflicts === 0
        ? ''
        : `; ${this.conflicts} ${this.conflicts === 1 ? 'conflict' : 'conflicts'}`;
    return `${this.scans} ${this.scans === 1 ? 'scan' : 'scans'}: ${parts.join(', ')}${conflicts}`;
  }
}
