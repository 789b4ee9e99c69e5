import type { Attendee } from '../attendees/attendee.entity';
import { exec, statement, type Runner } from '../../db/driver';
import type { TicketStatus } from '@boxoffice/contract';
import type { Checkin } from './checkin.entity';

/** A check-in row as the entity's plain type. */
export type CheckinRow = Pick<
  Checkin,
  | 'id'
  | 'organisationId'
  | 'eventId'
  | 'ticketId'
  | 'attendeeId'
  | 'apiKeyId'
  | 'direction'
  | 'gate'
  | 'deviceId'
  | 'scannedAt'
  | 'createdAt'
  | 'updatedAt'
>;

/** What a scan writes: the check-in, and the state its ticket and attendee move to. */
export interface Scan {
  checkin: CheckinRow;
  ticketStatus: TicketStatus;
  checkedInAt: Date | null;
  /** The attendee's `checked_in` after the scan. */
  inside: boolean;
  /** The scan's moment: the rows' `updated_at`. */
  at: Date;
}

/**
 * A scan's writes as one statement (one round trip on the busiest write of a door night): the
 * ticket's new state, the check-in's insert, and the attendee following its ticket. The parts of a
 * WITH run on one snapshot, each exactly once: they touch different rows, and the foreign keys are
 * checked at commit. It returns the attendee as changed, or no row when the attendee already had
 * that state (nothing changed, nothing to record). The one statement of this module that writes
 * other modules' tables: the ticket was locked by its repository (`lockTicket`) first.
 */
const RECORD_SCAN = statement<Attendee, Scan>(
  `with admitted as (
     update tickets set status = $1, checked_in_at = $2, updated_at = $3
      where id = $4 and organisation_id = $5
   ),
   recorded as (
     insert into checkins (id, organisation_id, event_id, ticket_id, attendee_id, api_key_id,
                           direction, gate, device_id, scanned_at, created_at, updated_at)
     values ($6, $5, $7, $4, $8, $9, $10, $11, $12, $13, $3, $3)
   )
   update attendees set checked_in = $14, updated_at = $3
    where id = $8 and organisation_id = $5 and checked_in <> $14
   returning id, organisation_id as "organisationId", ticket_id as "ticketId",
             order_id as "orderId", event_id as "eventId", first_name as "firstName",
             last_name as "lastName", email, company, answers, checked_in as "checkedIn",
             created_at as "createdAt", updated_at as "updatedAt"`,
  ({ checkin, ticketStatus, checkedInAt, inside, at }) => [
    ticketStatus,
    checkedInAt,
    at,
    checkin.ticketId,
    checkin.organisationId,
    checkin.id,
    checkin.eventId,
    checkin.attendeeId,
    checkin.apiKeyId,
    checkin.direction,
    checkin.gate,
    checkin.deviceId,
    checkin.scannedAt,
    inside,
  ],
);

/** Writes a scan (see RECORD_SCAN); the attendee when it changed, else null. */
export async function recordScan(on: Runner, scan: Scan): Promise<Attendee | null> {
  const [attendee] = await exec(on, RECORD_SCAN, scan);
  return attendee ?? null;
}

/**
 * The ticket's latest entry: the check-in that admitted it, while it is inside. Check-ins of one
 * transaction share their `created_at` (a batch that let a ticket in, out and in again): then the
 * later scan, by `scanned_at`, is taken.
 */
const LATEST_ENTRY = statement<CheckinRow, { organisationId: string; ticketId: string }>(
  `select id, organisation_id as "organisationId", event_id as "eventId", ticket_id as "ticketId",
          attendee_id as "attendeeId", api_key_id as "apiKeyId", direction, gate,
          device_id as "deviceId", scanned_at as "scannedAt", created_at as "createdAt",
          updated_at as "updatedAt"
     from checkins
    where organisation_id = $1 and ticket_id = $2 and direction = 'entry'
    order by created_at desc, scanned_at desc, id desc
    limit 1`,
  (v) => [v.organisationId, v.ticketId],
);

export async function latestEntry(
  on: Runner,
  organisationId: string,
  ticketId: string,
): Promise<CheckinRow | null> {
  const [row] = await exec(on, LATEST_ENTRY, { organisationId, ticketId });
  return row ?? null;
}
