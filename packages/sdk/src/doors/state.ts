import type {
  Attendee,
  Checkin,
  CheckinBatchResult,
  Ticket,
  TicketStatus,
} from '../resources/types';
import type { DoorScan } from './store';

/** The check-in that let a ticket in, as far as the door knows it. */
export interface DoorAdmission {
  /** When it was scanned (ISO-8601, UTC). */
  scanned_at: string;
  /** The gate it was scanned at, or `null` when not known. */
  gate: string | null;
  /** The device that scanned it, or `null` when not known. */
  device_id: string | null;
  /**
   * When the server recorded it (ISO-8601, UTC); absent while it is this door's own scan that the
   * server has not acknowledged yet.
   */
  created_at?: string | undefined;
}

/** A ticket of the door's event, as the door sees it: the server's state and the door's own scans. */
export interface DoorTicket {
  /** `tkt_…` */
  id: string;
  /** The barcode secret. */
  code: string;
  /** `evt_…` */
  event_id: string;
  /** `tier_…` */
  tier_id: string;
  /** `att_…` */
  attendee_id: string;
  /** `valid`, `checked_in` (inside) or `void`. */
  status: TicketStatus;
  /** When the current admission was recorded (ISO-8601, UTC), or `null`. */
  checked_in_at: string | null;
  /** When the server last changed it (ISO-8601, UTC). */
  updated_at: string;
  /** The latest admission the door knows of, inside or not now; `null` if none. */
  admission: DoorAdmission | null;
}

/** The attendee of a ticket: enough to greet them. */
export interface DoorAttendee {
  /** `att_…` */
  id: string;
  /** Their ticket, `tkt_…`. */
  ticket_id: string;
  first_name: string;
  last_name: string;
  company: string | null;
}

/** Where each sync stream continues: the `sync_checkpoint` of its last complete walk. */
export interface DoorCheckpoints {
  tickets?: string | undefined;
  attendees?: string | undefined;
  checkins?: string | undefined;
}

/** What a store keeps under `snapshot`: the state downloaded, without the door's pending scans. */
export interface DoorSnapshot {
  version: 1;
  event_id: string;
  /** When it was saved, by the client's clock (ISO-8601). */
  saved_at: string;
  checkpoints: DoorCheckpoints;
  tickets: DoorTicket[];
  attendees: DoorAttendee[];
  /** Codes the server said belong to another event. */
  foreign: string[];
  /** The scans whose answers this snapshot already holds (their journal entries may remain). */
  applied: string[];
}

/** What the door knows of a scanned code. */
export type Lookup =
  | { kind: 'ticket'; ticket: DoorTicket; attendee: DoorAttendee | undefined }
  | { kind: 'foreign' }
  | { kind: 'unknown' };

const time = (iso: string): number => Date.parse(iso);

/** Whether `a` is strictly later than `b` (both ISO-8601). */
const later = (a: string, b: string): boolean => time(a) > time(b);

/**
 * The event as the door knows it: the server's state (tickets, attendees, the latest admission of
 * each ticket), merged from downloads, refreshes and the answers to its own scans, and over it the
 * scans the server has not answered yet.
 *
 * Merges follow the server's own clock: a ticket's `updated_at` is the moment of its last change,
 * and a check-in's `created_at` is the moment it changed its ticket, so whichever is later says
 * where the ticket is. Changes arrive in any order (a refresh, an answer to a batch), and an older
 * one never undoes a newer one.
 */
export class DoorState {
  private readonly tickets = new Map<string, DoorTicket>();
  private readonly ids = new Map<string, string>();
  private readonly attendees = new Map<string, DoorAttendee>();
  private readonly foreign = new Set<string>();
  /** The last scan of each ticket the server has not answered, by ticket id. */
  private readonly pending = new Map<string, DoorScan>();
  checkpoints: DoorCheckpoints = {};

  constructor(readonly eventId: string) {}

  get size(): number {
    return this.tickets.size;
  }

  /** The door's view of `code`: the server's state, with the door's own unanswered scans on top. */
  lookup(code: string): Lookup {
    const id = this.ids.get(code);
    const ticket = id === undefined ? undefined : this.tickets.get(id);
    if (!ticket) return this.foreign.has(code) ? { kind: 'foreign' } : { kind: 'unknown' };
    return { kind: 'ticket', ticket: this.view(ticket), attendee: this.attendees.get(ticket.id) };
  }

  /** A ticket as the door answers for it (its unanswered scans applied), by id. */
  ticket(id: string): DoorTicket | undefined {
    const ticket = this.tickets.get(id);
    return ticket && this.view(ticket);
  }

  attendee(ticketId: string): DoorAttendee | undefined {
    return this.attendees.get(ticketId);
  }

  private view(ticket: DoorTicket): DoorTicket {
    const scan = this.pending.get(ticket.id);
    if (!scan) return { ...ticket, admission: currentAdmission(ticket) };
    const admission = { scanned_at: scan.scanned_at, gate: scan.gate, device_id: scan.device_id };
    return scan.direction === 'entry'
      ? { ...ticket, status: 'checked_in', checked_in_at: scan.scanned_at, admission }
      : { ...ticket, status: 'valid', checked_in_at: null, admission: null };
  }

  /**
   * The door accepted `scan`: until the server answers, the ticket is where the scan put it. Returns
   * the ticket's scan pending before it, if any (to undo with `settle`).
   */
  addPending(scan: DoorScan): DoorScan | undefined {
    const previous = this.pending.get(scan.ticket_id);
    this.pending.set(scan.ticket_id, scan);
    return previous;
  }

  /** `scan` is answered (or undone): the ticket no longer waits on it, unless a later scan is pending. */
  settle(scan: DoorScan, previous?: DoorScan): void {
    if (this.pending.get(scan.ticket_id)?.idempotency_key !== scan.idempotency_key) return;
    if (previous) this.pending.set(scan.ticket_id, previous);
    else this.pending.delete(scan.ticket_id);
  }

  /** A ticket from a download or refresh: replaces the door's copy unless that one is newer. */
  mergeTicket(ticket: Ticket): void {
    if (ticket.event_id !== this.eventId) {
      this.forget(ticket.id);
      this.foreign.add(ticket.code);
      return;
    }
    const known = this.tickets.get(ticket.id);
    if (known && later(known.updated_at, ticket.updated_at)) return;
    this.tickets.set(ticket.id, {
      id: ticket.id,
      code: ticket.code,
      event_id: ticket.event_id,
      tier_id: ticket.tier_id,
      attendee_id: ticket.attendee_id,
      status: ticket.status,
      checked_in_at: ticket.checked_in_at,
      updated_at: ticket.updated_at,
      admission: known?.admission ?? null,
    });
    this.ids.set(ticket.code, ticket.id);
  }

  mergeAttendee(attendee: Attendee): void {
    const { id, ticket_id, first_name, last_name, company } = attendee;
    this.attendees.set(ticket_id, { id, ticket_id, first_name, last_name, company });
  }

  /**
   * A check-in (this door's or another's): an entry is the ticket's latest admission if none later
   * is known; and unless the door knows of a later change, the ticket is where the check-in put it.
   * A check-in stamped at the same moment as the ticket's last change moves it only when `ties`:
   * a ticket read from the server shows the state after every check-in of its moment (the scans of
   * one batch share it), whereas a batch's own answers come in the order they were applied.
   */
  mergeCheckin(checkin: Checkin, ties = false): void {
    const ticket = this.tickets.get(checkin.ticket_id);
    if (!ticket) return;
    const entry = checkin.direction === 'entry';
    const known = ticket.admission?.created_at;
    if (entry && (known === undefined || !later(known, checkin.created_at))) {
      ticket.admission = {
        scanned_at: checkin.scanned_at,
        gate: checkin.gate,
        device_id: checkin.device_id,
        created_at: checkin.created_at,
      };
    }
    if (ticket.status === 'void') return;
    if (
      ties
        ? later(ticket.updated_at, checkin.created_at)
        : !later(checkin.created_at, ticket.updated_at)
    ) {
      return;
    }
    ticket.status = entry ? 'checked_in' : 'valid';
    ticket.checked_in_at = entry ? checkin.created_at : null;
    ticket.updated_at = checkin.created_at;
  }

  /**
   * The server's answer to one of the door's scans. A 201 is a check-in like any other; a refusal
   * says what the ticket really is: admitted elsewhere (with that admission), void, not inside, not
   * a ticket at all, or one of another event.
   */
  applyResult(scan: DoorScan, result: CheckinBatchResult): void {
    if (result.status === 201) {
      if (result.data) this.mergeCheckin(result.data, true);
      return;
    }
    const ticket = this.tickets.get(scan.ticket_id);
    if (result.status === 404) {
      this.forget(scan.ticket_id);
    } else if (result.status === 422) {
      if (result.code === 'wrong_event') {
        this.forget(scan.ticket_id);
        this.foreign.add(scan.code);
      }
    } else if (!ticket) {
      // Gone meanwhile: nothing to correct.
    } else if (result.code === 'already_checked_in') {
      if (result.admission) this.mergeCheckin(result.admission, true);
      else {
        ticket.status = 'checked_in';
        ticket.checked_in_at ??= scan.scanned_at;
      }
    } else if (result.code === 'ticket_void') {
      ticket.status = 'void';
    } else if (result.code === 'not_checked_in' && ticket.status === 'checked_in') {
      ticket.status = 'valid';
      ticket.checked_in_at = null;
    }
  }

  private forget(ticketId: string): void {
    const ticket = this.tickets.get(ticketId);
    if (!ticket) return;
    this.tickets.delete(ticketId);
    this.ids.delete(ticket.code);
    this.attendees.delete(ticketId);
  }

  /** Takes the server's side of `other` (a fresh download), keeping this door's pending scans. */
  replaceWith(other: DoorState): void {
    this.tickets.clear();
    this.ids.clear();
    this.attendees.clear();
    this.foreign.clear();
    for (const [id, ticket] of other.tickets) this.tickets.set(id, ticket);
    for (const [code, id] of other.ids) this.ids.set(code, id);
    for (const [id, attendee] of other.attendees) this.attendees.set(id, attendee);
    for (const code of other.foreign) this.foreign.add(code);
    this.checkpoints = { ...other.checkpoints };
  }

  snapshot(savedAt: string, applied: string[]): DoorSnapshot {
    return {
      version: 1,
      event_id: this.eventId,
      saved_at: savedAt,
      checkpoints: this.checkpoints,
      tickets: [...this.tickets.values()],
      attendees: [...this.attendees.values()],
      foreign: [...this.foreign],
      applied,
    };
  }

  /** Restores a snapshot of this event; false (and nothing changed) for another or unreadable one. */
  restore(value: unknown): value is DoorSnapshot {
    if (!isSnapshot(value) || value.event_id !== this.eventId) return false;
    const next = new DoorState(this.eventId);
    for (const ticket of value.tickets) {
      next.tickets.set(ticket.id, ticket);
      next.ids.set(ticket.code, ticket.id);
    }
    for (const attendee of value.attendees) next.attendees.set(attendee.ticket_id, attendee);
    for (const code of value.foreign) next.foreign.add(code);
    next.checkpoints = value.checkpoints;
    this.replaceWith(next);
    return true;
  }
}

function isSnapshot(value: unknown): value is DoorSnapshot {
  if (typeof value !== 'object' || value === null) return false;
  const snapshot = value as Partial<DoorSnapshot>;
  return (
    snapshot.version === 1 &&
    typeof snapshot.event_id === 'string' &&
    Array.isArray(snapshot.tickets) &&
    Array.isArray(snapshot.attendees) &&
    Array.isArray(snapshot.foreign) &&
    Array.isArray(snapshot.applied) &&
    typeof snapshot.checkpoints === 'object'
  );
}

/**
 * The admission to show for a ticket inside: the latest known, if it is the one that let the
 * ticket in now (recorded no earlier than `checked_in_at`, or scanned then); otherwise all the door
 * knows is since when. Tickets not inside have none.
 */
function currentAdmission(ticket: DoorTicket): DoorAdmission | null {
  if (ticket.status !== 'checked_in') return null;
  const { admission, checked_in_at: since } = ticket;
  if (since === null) return admission;
  if (
    admission &&
    (admission.created_at === undefined ||
      !later(since, admission.created_at) ||
      time(admission.scanned_at) === time(since))
  ) {
    return admission;
  }
  return { scanned_at: since, gate: null, device_id: null };
}
