import type { EntityManager } from '@mikro-orm/postgresql';
import type {
  Checkin as CheckinResource,
  CheckinCreate,
  CheckinDirection,
} from '@boxoffice/contract';
import type { TenantContext } from '../../core/context';
import { conflict, notFound, unprocessable } from '../../core/errors';
import { looksLikeId, newId } from '../../core/ids';
import { getOwned, inTransaction, iso } from '../../db/context';
import { findPage, type ListFilter, type Page, type PageRequest } from '../../db/pages';
import { fixedText } from '../../db/rows';
import { run } from '../../db/sql';
import {
  followAdmission,
  followAdmissionText,
  followedAttendee,
  toAttendeeResource,
} from '../attendees/attendee.service';
import { recordChanges } from '../changes/change.service';
import { ADMISSION_TEXT, admission, lockTicket, toTicketResource } from '../tickets/ticket.service';
import { Checkin } from './checkin.entity';

export const toCheckinResource = (checkin: RecordedCheckin): CheckinResource => ({
  id: checkin.id,
  ticket_id: checkin.ticketId,
  attendee_id: checkin.attendeeId,
  event_id: checkin.eventId,
  direction: checkin.direction,
  gate: checkin.gate ?? null,
  device_id: checkin.deviceId ?? null,
  scanned_at: iso(checkin.scannedAt),
  api_key_id: checkin.apiKeyId ?? null,
  created_at: iso(checkin.createdAt),
  updated_at: iso(checkin.updatedAt),
});

export interface CheckinFilters extends PageRequest {
  event_id?: string;
  ticket_id?: string;
  direction?: CheckinDirection[];
  gate?: string;
  since?: Date;
}

export async function listCheckins(
  ctx: TenantContext,
  query: CheckinFilters,
): Promise<Page<Checkin>> {
  const where: ListFilter<Checkin> = { organisationId: ctx.organisationId };
  if (query.event_id) where.eventId = query.event_id;
  if (query.ticket_id) where.ticketId = query.ticket_id;
  if (query.direction) where.direction = { $in: query.direction };
  if (query.gate) where.gate = query.gate;
  if (query.since) where.createdAt = { $gte: query.since };
  return findPage(ctx.em, Checkin, where, query);
}

export const getCheckin = (ctx: TenantContext, id: string): Promise<Checkin> =>
  getOwned(ctx, Checkin, 'checkin', 'check-in', id);

/** What `recordCheckin` returns: the stored row's values. */
export type RecordedCheckin = Pick<
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

/**
 * The scan's writes as one statement: the ticket's admission, the check-in's insert, and the
 * attendee following its ticket (ADMISSION_TEXT and `followAdmissionText`). The statements of a
 * WITH run on one snapshot, each exactly once: they touch different rows, and the foreign keys are
 * checked at commit.
 */
const recordCheckinText = (em: EntityManager): string =>
  `with admitted as (${ADMISSION_TEXT}),
        recorded as (
          insert into checkins (id, organisation_id, event_id, ticket_id, attendee_id,
                                api_key_id, direction, gate, device_id, scanned_at,
                                created_at, updated_at)
          values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        )
   ${followAdmissionText(em)}`;

/**
 * A door scan, in one transaction: the ticket row is locked (`SELECT … FOR UPDATE`), its state is
 * checked and changed, the attendee follows, the check-in row is inserted, and the three changes
 * are recorded; all or nothing. Two doors scanning one ticket at once queue on the lock: the first
 * admits, the second sees `checked_in`. Plain statements rather than entities: this is the busiest
 * write of a door night, and the unit of work cost more than the statements (see bench/README.md).
 * The ticket's update, the check-in's insert and the attendee's update (which says whether the
 * attendee changed) go as one statement: each statement is a round trip, and the ORM's own cost
 * per statement is most of what a scan costs beyond the database's work.
 */
export async function recordCheckin(
  ctx: TenantContext & { apiKeyId: string },
  input: CheckinCreate,
): Promise<RecordedCheckin> {
  const byId = input.ticket_id !== undefined;
  if (byId && !looksLikeId('ticket', input.ticket_id!)) throw notFound('ticket');
  return inTransaction(ctx, async (tx) => {
    const ticket = await lockTicket(tx, byId ? { id: input.ticket_id! } : { code: input.code! });
    if (!ticket) throw notFound('ticket');
    if (input.event_id !== undefined && input.event_id !== ticket.eventId) {
      throw unprocessable('ticket is for a different event', 'wrong_event');
    }
    if (ticket.status === 'void') throw conflict('ticket is void', 'ticket_void');
    const direction = input.direction ?? 'entry';
    const entry = direction === 'entry';
    if (entry && ticket.status === 'checked_in') {
      const at = ticket.checkedInAt ? ticket.checkedInAt.toISOString() : 'an earlier scan';
      throw conflict(`ticket already checked in at ${at}`, 'already_checked_in');
    }
    if (!entry && ticket.status !== 'checked_in') {
      throw conflict('ticket is not checked in, so it cannot exit', 'not_checked_in');
    }
    // The busiest write stamps its rows itself, in plain SQL: the ORM's stamps are not in it.
    const now = new Date();
    const admitted = admission(ticket, entry, now);
    const checkin: RecordedCheckin = {
      id: newId('checkin', now),
      organisationId: ctx.organisationId,
      eventId: ticket.eventId,
      ticketId: ticket.id,
      attendeeId: ticket.attendeeId,
      apiKeyId: ctx.apiKeyId,
      direction,
      gate: input.gate ?? null,
      deviceId: input.device_id ?? null,
      scannedAt: input.scanned_at ? new Date(input.scanned_at) : now,
      createdAt: now,
      updatedAt: now,
    };
    const [followed] = await run(tx.em, {
      text: fixedText(tx.em, recordCheckinText),
      params: [
        ...admitted.params,
        checkin.id,
        checkin.organisationId,
        checkin.eventId,
        checkin.ticketId,
        checkin.attendeeId,
        checkin.apiKeyId,
        checkin.direction,
        checkin.gate,
        checkin.deviceId,
        checkin.scannedAt,
        checkin.createdAt,
        checkin.updatedAt,
        ...followAdmission(tx, ticket.attendeeId, entry, now),
      ],
    });
    const attendee = followed ? followedAttendee(tx, followed) : null;
    await recordChanges(tx, [
      { type: 'ticket.updated', object: toTicketResource(admitted.changed) },
      ...(attendee
        ? [{ type: 'attendee.updated' as const, object: toAttendeeResource(attendee) }]
        : []),
      { type: 'checkin.created', object: toCheckinResource(checkin) },
    ]);
    return checkin;
  });
}
