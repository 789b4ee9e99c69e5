import type { FilterQuery } from '@mikro-orm/postgresql';
import type {
  Checkin as CheckinResource,
  CheckinCreate,
  CheckinDirection,
} from '@boxoffice/contract';
import {
  findPage,
  getOwned,
  iso,
  type Page,
  type PageRequest,
  type TenantContext,
} from '../../db/context';
import { newId } from '../../db/ids';
import { conflict, notFound, unprocessable } from '../../http/errors';
import { markAttendeePresence } from '../attendees/attendee.service';
import { lockTicketForScan } from '../tickets/ticket.service';
import { Checkin } from './checkin.entity';

export const toCheckinResource = (checkin: Checkin): CheckinResource => ({
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
  const where: FilterQuery<Checkin> = { organisationId: ctx.organisationId };
  if (query.event_id) where.eventId = query.event_id;
  if (query.ticket_id) where.ticketId = query.ticket_id;
  if (query.direction) where.direction = { $in: query.direction };
  if (query.gate) where.gate = query.gate;
  if (query.since) where.createdAt = { $gte: query.since };
  return findPage(ctx.em, Checkin, where, query);
}

export const getCheckin = (ctx: TenantContext, id: string): Promise<Checkin> =>
  getOwned(ctx, Checkin, 'checkin', 'check-in', id);

/**
 * A door scan. The ticket row is locked for the whole transaction, its state is checked and
 * changed, the attendee follows, and the check-in row is inserted; all or nothing. Two doors
 * scanning one ticket at once queue on the lock: the first admits, the second sees `checked_in`.
 */
export async function recordCheckin(
  ctx: TenantContext & { apiKeyId: string },
  input: CheckinCreate,
): Promise<Checkin> {
  return ctx.em.transactional(async (em) => {
    const tx = { ...ctx, em };
    const ticket = await lockTicketForScan(tx, { ticketId: input.ticket_id, code: input.code });
    if (!ticket) throw notFound('ticket');
    if (input.event_id !== undefined && input.event_id !== ticket.eventId) {
      throw unprocessable('ticket is for a different event', 'wrong_event');
    }
    if (ticket.status === 'void') throw conflict('ticket is void', 'ticket_void');
    const direction = input.direction ?? 'entry';
    const now = new Date();
    if (direction === 'entry') {
      if (ticket.status === 'checked_in') {
        throw conflict(
          `ticket already checked in at ${ticket.checkedInAt?.toISOString() ?? 'an earlier scan'}`,
          'already_checked_in',
        );
      }
      ticket.status = 'checked_in';
      ticket.checkedInAt = now;
    } else {
      if (ticket.status !== 'checked_in') {
        throw conflict('ticket is not checked in, so it cannot exit', 'not_checked_in');
      }
      ticket.status = 'valid';
      ticket.checkedInAt = null;
    }
    ticket.updatedAt = now;
    await markAttendeePresence(tx, ticket.attendeeId, direction === 'entry', now);
    return em.create(Checkin, {
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
    });
  });
}
