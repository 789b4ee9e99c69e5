import type { Checkin as CheckinResource, CheckinCreate } from '@boxoffice/contract';
import type { TenantContext } from '../../core/context';
import { AppError, conflict, notFound, unprocessable } from '../../core/errors';
import { looksLikeId, newId } from '../../core/ids';
import { iso } from '../../core/iso-time';
import { stampsOf } from '../../core/stamps';
import { clock, inTransaction } from '../../db/driver';
import { deleteAllOwned, getOwned } from '../../db/owned';
import { resourceList, type ListFilters } from '../../db/resource-list';
import { toAttendeeResource } from '../attendees/attendee.service';
import { recordChanges } from '../changes/change.service';
import { lockTicket, toTicketResource } from '../tickets/ticket.service';
import { Checkin } from './checkin.entity';
import { latestEntry, recordScan, type CheckinRow } from './checkin.repository';

/** The check-in as the API renders it; `livemode` says whether it is live data or test data. */
export const toCheckinResource = (checkin: CheckinRow, livemode: boolean): CheckinResource => ({
  id: checkin.id,
  ticket_id: checkin.ticketId,
  attendee_id: checkin.attendeeId,
  event_id: checkin.eventId,
  direction: checkin.direction,
  gate: checkin.gate ?? null,
  device_id: checkin.deviceId ?? null,
  scanned_at: iso(checkin.scannedAt),
  api_key_id: checkin.apiKeyId ?? null,
  ...stampsOf(checkin, livemode),
});

/**
 * The check-in list: `event_id`, and `ticket_id`, `direction`, `gate` and `since` (recorded since),
 * always in the order they were recorded.
 */
export const checkinList = resourceList<Checkin, ListFilters<'checkins'>>(
  Checkin,
  (where, query) => {
    if (query.ticket_id) where.ticketId = query.ticket_id;
    if (query.direction) where.direction = { $in: query.direction };
    if (query.gate) where.gate = query.gate;
    if (query.since) where.createdAt = { $gte: query.since };
  },
  () => ['createdAt', 'id'],
);

export const getCheckin = (ctx: TenantContext, id: string): Promise<Checkin> =>
  getOwned(ctx, Checkin, 'checkin', 'check-in', id);

/** Who scans: the tenant, and the API key the check-ins are recorded for. */
export type ScanContext = TenantContext & { apiKeyId: string };

/**
 * The check-ins that admitted the tickets admitted earlier in the same transaction, by ticket (the
 * scans of one batch): those share their `created_at`, so the database cannot tell which came
 * last.
 */
export type Admissions = Map<string, CheckinRow>;

/**
 * A door scan, in one transaction: the ticket row is locked (`SELECT … FOR UPDATE`), its state is
 * checked, the scan's writes go as one statement (`recordScan`), and the changes are recorded; all
 * or nothing. Two doors scanning one ticket at once queue on the lock: the first admits, the second
 * sees `checked_in`, and is told which check-in admitted the ticket (`admission`).
 */
export const recordCheckin = (ctx: ScanContext, input: CheckinCreate): Promise<CheckinRow> =>
  inTransaction(ctx, (tx) => scanTicket(tx, input));

/**
 * The rules of one scan (see `recordCheckin`), in the caller's transaction `tx`. A refusal (404,
 * 409, 422) is thrown before anything is written. `admissions`, when given, is read for the check-in
 * that admitted a ticket and kept up to date.
 */
export async function scanTicket(
  tx: ScanContext,
  input: CheckinCreate,
  admissions?: Admissions,
): Promise<CheckinRow> {
  if (input.ticket_id !== undefined && !looksLikeId('ticket', input.ticket_id)) {
    throw notFound('ticket');
  }
  const ticket = await lockTicket(
    tx,
    input.ticket_id !== undefined ? { id: input.ticket_id } : { code: input.code ?? '' },
  );
  if (!ticket) throw notFound('ticket');
  if (input.event_id !== undefined && input.event_id !== ticket.eventId) {
    throw unprocessable('ticket is for a different event', 'wrong_event');
  }
  if (ticket.status === 'void') throw conflict('ticket is void', 'ticket_void');
  const direction = input.direction ?? 'entry';
  const inside = direction === 'entry';
  if (inside && ticket.status === 'checked_in') {
    const at = ticket.checkedInAt ? ticket.checkedInAt.toISOString() : 'an earlier scan';
    const admission =
      admissions?.get(ticket.id) ?? (await latestEntry(tx.em, tx.organisationId, ticket.id));
    throw new AppError(
      409,
      'already_checked_in',
      `ticket already checked in at ${at}`,
      {},
      admission ? { admission: toCheckinResource(admission, tx.livemode) } : {},
    );
  }
  if (!inside && ticket.status !== 'checked_in') {
    throw conflict('ticket is not checked in, so it cannot exit', 'not_checked_in');
  }
  const at = clock(tx.em);
  const admitted = {
    ...ticket,
    status: inside ? ('checked_in' as const) : ('valid' as const),
    checkedInAt: inside ? at : null,
    updatedAt: at,
  };
  const checkin: CheckinRow = {
    id: newId('checkin', at),
    organisationId: tx.organisationId,
    eventId: ticket.eventId,
    ticketId: ticket.id,
    attendeeId: ticket.attendeeId,
    apiKeyId: tx.apiKeyId,
    direction,
    gate: input.gate ?? null,
    deviceId: input.device_id ?? null,
    scannedAt: input.scanned_at ? new Date(input.scanned_at) : at,
    createdAt: at,
    updatedAt: at,
  };
  const attendee = await recordScan(tx.em, {
    checkin,
    ticketStatus: admitted.status,
    checkedInAt: admitted.checkedInAt,
    inside,
    at,
  });
  await recordChanges(tx, [
    { type: 'ticket.updated', object: toTicketResource(admitted, tx.livemode) },
    ...(attendee
      ? [{ type: 'attendee.updated' as const, object: toAttendeeResource(attendee, tx.livemode) }]
      : []),
    { type: 'checkin.created', object: toCheckinResource(checkin, tx.livemode) },
  ]);
  if (inside) admissions?.set(ticket.id, checkin);
  else admissions?.delete(ticket.id);
  return checkin;
}

/** Deletes all the organisation's check-ins (a test environment's reset); how many. */
export const deleteAllCheckins = (ctx: TenantContext): Promise<number> =>
  deleteAllOwned(ctx, Checkin);
